import type { Ctx } from '../context.ts';
import {
  finishConnect,
  listConnections,
  requirePublishing,
  revokeConnection,
  startConnect,
  type ConnectionRequest,
  type ConnectionView,
  type ConsentAnswer,
} from '../publishing/connections.ts';
import { sessionOf } from './caller.ts';
import type { Credentials } from './credentials.ts';

// Publishing that is not configured is refused first: the same 400 whoever asks, before any session check.

/** A consent request for the caller's session: the caller opens `authorize_url` in a browser. */
export async function startConnectCall(ctx: Ctx, creds: Credentials): Promise<{ connection_request: ConnectionRequest }> {
  requirePublishing(ctx);
  const session = await sessionOf(ctx, creds);
  return { connection_request: await startConnect(ctx, session.id) };
}

/** Where the host sends the browser back: no bearer, the state names the session. */
export async function finishConnectCall(ctx: Ctx, answer: ConsentAnswer): Promise<{ connected: true; connection: ConnectionView }> {
  return { connected: true, connection: await finishConnect(ctx, answer) };
}

export async function listConnectionsCall(ctx: Ctx, creds: Credentials): Promise<{ connections: ConnectionView[] }> {
  requirePublishing(ctx);
  return { connections: await listConnections(ctx, (await sessionOf(ctx, creds)).id) };
}

export async function revokeConnectionCall(ctx: Ctx, creds: Credentials, connectionId: string): Promise<{ deleted: true }> {
  requirePublishing(ctx);
  await revokeConnection(ctx, (await sessionOf(ctx, creds)).id, connectionId);
  return { deleted: true };
}
