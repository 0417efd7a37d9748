import { describe, expect, it } from 'vitest';
import { classifyHostError, offsetOfRange } from './video-host-api.ts';

const google = (code: number, reason: string, message = 'm') => ({ error: { code, message, errors: [{ reason }] } });

describe('video host answers', () => {
  it('reads the bytes a 308 says the host holds', () => {
    expect(offsetOfRange('bytes=0-262143')).toBe(262144);
    expect(offsetOfRange(null)).toBe(0);
    expect(offsetOfRange('garbage')).toBe(0);
  });

  it('classifies errors by status and reason: auth, quota, retryable, session gone, permanent', () => {
    expect(classifyHostError(401, google(401, 'authError')).kind).toBe('auth');
    expect(classifyHostError(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }).kind).toBe('auth');
    expect(classifyHostError(403, google(403, 'quotaExceeded')).kind).toBe('quota');
    expect(classifyHostError(403, google(403, 'uploadLimitExceeded')).kind).toBe('quota');
    expect(classifyHostError(403, google(403, 'rateLimitExceeded')).kind).toBe('retryable');
    expect(classifyHostError(429, {}).kind).toBe('retryable');
    expect(classifyHostError(503, google(503, 'backendError')).kind).toBe('retryable');
    expect(classifyHostError(404, {}).kind).toBe('session_gone');
    const refused = classifyHostError(400, google(400, 'invalidTitle', 'The request metadata specifies an invalid video title.'));
    expect(refused.kind).toBe('permanent');
    expect(refused.message).toContain('invalid video title');
  });
});
