import { describe, expect, it } from 'vitest';
import {
  type AgentFacts,
  type ClaimPolicy,
  decideClaim,
  DRAINING_RETRY_MS,
  type EligibilitySnapshot,
  REFUSED_RETRY_MS,
  RETRY_ELSEWHERE_MS,
} from './claim-rules.ts';

const now = new Date('2026-11-01T00:00:00Z');
const policy: ClaimPolicy = { routing: {}, blocklistFailures: 3, RETRY_BACKOFF_MS: 10_000, RETRY_BACKOFF_MAX_MS: 60_000, now };
const agent = (id: string, over: Partial<AgentFacts> = {}): AgentFacts => ({
  id,
  state: 'active',
  kinds: ['cut'],
  tags: [],
  live: true,
  typeFailures: 0,
  rotateRequested: false,
  ...over,
});
const snap = (over: Partial<EligibilitySnapshot> = {}): EligibilitySnapshot => ({
  job: { type: 'extract_clip', kind: 'cut', attemptCount: 0, lastFailureEndedAt: null },
  agent: agent('me'),
  failedBy: [],
  peers: [],
  ...over,
});
const decide = (s: EligibilitySnapshot, p: Partial<ClaimPolicy> = {}) => decideClaim(s, { ...policy, ...p });

describe('the claim policy (one rule per line, first refusal decides)', () => {
  it('claims a queued job for an active agent that announces the kind', () => {
    expect(decide(snap())).toEqual({ claim: true, blockedButAlone: false });
  });

  it.each<[string, EligibilitySnapshot, Partial<ClaimPolicy>, object]>([
    ['1. no job an agent runs', snap({ job: null }), {}, { claim: false, reason: 'job is not waiting for an agent' }],
    [
      '2. no agent row: tags only',
      snap({ agent: null }),
      { routing: { cut: ['gpu'] } },
      { reason: 'extract_clip needs an agent tagged gpu', retry_after_ms: REFUSED_RETRY_MS },
    ],
    [
      '3. draining, told so',
      snap({ agent: agent('me', { state: 'draining', rotateRequested: true }) }),
      {},
      { reason: 'this agent is draining', retry_after_ms: DRAINING_RETRY_MS, control: { state: 'draining', rotate_credential: true } },
    ],
    ['4. retired', snap({ agent: agent('me', { state: 'retired' }) }), {}, { reason: 'this agent is retired', retry_after_ms: DRAINING_RETRY_MS }],
    ['5. kind not announced', snap({ agent: agent('me', { kinds: ['transcribe'] }) }), {}, { reason: 'this agent did not announce work kind cut' }],
    [
      '6. a tag of the type missing',
      snap({ agent: agent('me', { tags: ['gpu'] }) }),
      { routing: { cut: ['gpu'], extract_clip: ['region-eu'] } },
      { reason: 'extract_clip needs an agent tagged region-eu' },
    ],
    [
      '7. blocked while an unblocked peer could take it',
      snap({ agent: agent('me', { typeFailures: 3 }), peers: [agent('peer')] }),
      {},
      { reason: 'this agent is blocked for extract_clip after repeated failures (an operator can clear it)', retry_after_ms: REFUSED_RETRY_MS },
    ],
    [
      '8. inside the back-off after a failed attempt',
      snap({ job: { type: 'extract_clip', kind: 'cut', attemptCount: 2, lastFailureEndedAt: new Date(now.getTime() - 5_000) } }),
      {},
      { reason: 'the job retries after a back-off', retry_after_ms: 15_000 },
    ],
    [
      '9. it failed this job and a peer that did not can take it',
      snap({ failedBy: ['me'], peers: [agent('peer')] }),
      {},
      { reason: 'this agent already failed this job; another agent can take it', retry_after_ms: RETRY_ELSEWHERE_MS },
    ],
  ])('refuses: %s', (_name, s, p, expected) => {
    expect(decide(s, p)).toMatchObject({ claim: false, ...expected });
  });

  it('a peer counts only when it could really take the job', () => {
    const blockedMe = agent('me', { typeFailures: 3 });
    const unfit = [
      agent('offline', { live: false }),
      agent('draining', { state: 'draining' }),
      agent('other-kind', { kinds: ['transcribe'] }),
      agent('blocked-too', { typeFailures: 5 }),
    ];
    // Rule 7 yields when no peer fits: a paid job must not wait on an operator.
    expect(decide(snap({ agent: blockedMe, peers: unfit }))).toEqual({ claim: true, blockedButAlone: true });
    // An untagged peer does not count where the kind needs a tag the claimant has.
    expect(decide(snap({ agent: agent('me', { typeFailures: 3, tags: ['gpu'] }), peers: [agent('untagged')] }), { routing: { cut: ['gpu'] } })).toEqual({
      claim: true,
      blockedButAlone: true,
    });
    // Rule 9: a peer that failed the job too does not count, so the same agent may retry.
    expect(decide(snap({ failedBy: ['me', 'peer'], peers: [agent('peer')] }))).toEqual({ claim: true, blockedButAlone: false });
  });

  it('the blocklist is off at 0 and counts from the threshold; the back-off ends on time and is off at 0', () => {
    expect(decide(snap({ agent: agent('me', { typeFailures: 99 }), peers: [agent('peer')] }), { blocklistFailures: 0 })).toMatchObject({ claim: true });
    expect(decide(snap({ agent: agent('me', { typeFailures: 2 }), peers: [agent('peer')] }))).toMatchObject({ claim: true });
    const failed = { type: 'extract_clip', kind: 'cut' as const, attemptCount: 1, lastFailureEndedAt: new Date(now.getTime() - 10_000) };
    expect(decide(snap({ job: failed }))).toMatchObject({ claim: true });
    expect(decide(snap({ job: { ...failed, lastFailureEndedAt: new Date(now.getTime() - 9_999) } }))).toMatchObject({ retry_after_ms: 1 });
    expect(decide(snap({ job: { ...failed, lastFailureEndedAt: now } }), { RETRY_BACKOFF_MS: 0 })).toMatchObject({ claim: true });
  });
});
