import { createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../db/database.ts';
import { sessions } from '../db/schema.ts';
import { hashToken } from '../lib/tokens.ts';

/** Tag of a request without a session token. */
export const ANONYMOUS_CALLER = 'anonymous';

/**
 * Who a challenge was issued to, carried in its HMAC-bound `opaque` (mppx `meta.owner`). Stock
 * clients answer a 402 by repeating the call with `Authorization: Payment …` in place of the
 * bearer token, so the credential alone must prove it answers a challenge the job's owner was
 * given: a stranger who knows a job id only ever receives `anonymous` challenges. Derived from
 * the token hash (never the token), keyed by the challenge secret.
 */
export function ownerTagOfTokenHash(secret: string, tokenHash: string): string {
  return createHmac('sha256', secret).update(`owner|${tokenHash}`).digest('base64url').slice(0, 22);
}

export function callerTag(secret: string, bearerToken: string | null): string {
  return bearerToken ? ownerTagOfTokenHash(secret, hashToken(bearerToken)) : ANONYMOUS_CALLER;
}

/** The tag a credential must carry to pay for a job owned by `sessionId`. */
export async function ownerTagOfSession(db: DbOrTx, secret: string, sessionId: string): Promise<string | undefined> {
  const [s] = await db.select({ tokenHash: sessions.tokenHash }).from(sessions).where(eq(sessions.id, sessionId)).limit(1);
  return s ? ownerTagOfTokenHash(secret, s.tokenHash) : undefined;
}
