import { z } from 'zod';

/** A video host connection as callers see it (publishing/connections.ts ConnectionView): never a token. */
export const Connection = z.object({
  id: z.uuid(),
  host: z.string().describe('`video_host`'),
  account_id: z.string().nullable().describe('The channel id the host reported; null when it did not say'),
  account_title: z.string().nullable(),
  scopes: z.array(z.string()).describe('Scopes the account granted'),
  status: z
    .enum(['active', 'revoked', 'invalid'])
    .describe(
      'active: usable; revoked: disconnected (by you, by the consent page’s revoke link, replaced by a newer connection, or revoked at the video host: ' +
        'status_reason says which), connect again to publish; invalid: this server can no longer use its stored tokens (its encryption key is gone), connect again',
    ),
  status_reason: z.string().nullable(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});
