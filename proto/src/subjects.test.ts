import { describe, expect, it } from 'vitest';
import { agentInboxPrefix, agentSubjectToken, cancelSubject, progressSubject, progressSubjectAgentToken } from './subjects.ts';

describe('agent subjects', () => {
  it('name the agent in one token, one-to-one: dots become ~, which no enrolled name contains', () => {
    expect(agentSubjectToken('gpu-1')).toBe('gpu-1');
    expect(agentSubjectToken('a.b')).toBe('a~b');
    // Agent "a" may publish under cutroom.progress.v2.a.*: agent "a.b" is not under it.
    expect(progressSubject('a.b', 'j')).toBe('cutroom.progress.v2.a~b.j');
    expect(cancelSubject('a.b', 't')).toBe('cutroom.control.v2.cancel.a~b.t');
    expect(agentInboxPrefix('a.b')).toBe('_INBOX_a~b');
    for (const bad of ['', 'a b', 'a*', 'a>', '.a', 'a~b', 'x'.repeat(129)]) expect(() => agentSubjectToken(bad), bad).toThrow();
  });

  it('read the agent back from a progress subject, and nothing from another subject', () => {
    expect(progressSubjectAgentToken(progressSubject('a.b', 'j'))).toBe('a~b');
    expect(progressSubjectAgentToken('cutroom.progress.v2.a.b.j')).toBeNull();
    expect(progressSubjectAgentToken('cutroom.control.v2.cancel.a.j')).toBeNull();
  });
});
