import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.ts';
import { buildMcpServer } from './server.ts';

export const MCP_PATH = '/mcp';

/**
 * POST /mcp: MCP over Streamable HTTP, stateless (no Mcp-Session-Id: every request carries what
 * it needs, so any coordinator replica answers it). A request whose tool waits answers as an SSE
 * stream carrying progress notifications and then the result; others as one JSON-RPC response in
 * that stream. GET (a standalone server stream) and DELETE (ending a session) have no meaning
 * without sessions: 405, as the transport spec allows.
 */
export async function mcpRoutes(app: FastifyInstance, opts: { ctx: Ctx }): Promise<void> {
  // Not in /openapi.json (a JSON-RPC endpoint, described by /.well-known/mcp/server-card.json);
  // no Idempotency-Key replay: the transport writes the raw response itself.
  const config = { idempotency: false } as const;
  app.post(MCP_PATH, { schema: { hide: true }, config }, async (req, reply) => {
    // Each tool call counts in the rate-limit group of what it does (mcp/catalog.ts `limit`), as the REST route for it would.
    const server = buildMcpServer(opts.ctx, { count: (group, session) => app.countRateLimit(req, group, session), clientIp: req.ip });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    // The security headers were set on fastify's reply; the transport writes the raw response.
    for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) reply.raw.setHeader(k, v);
    reply.hijack();
    await transport.handleRequest(req.raw, reply.raw, req.body);
  });
  const notAllowed = async (_req: unknown, reply: import('fastify').FastifyReply) =>
    reply.status(405).header('allow', 'POST').send({ error: 'this MCP endpoint is stateless: send JSON-RPC requests with POST' });
  app.get(MCP_PATH, { schema: { hide: true } }, notAllowed);
  app.delete(MCP_PATH, { schema: { hide: true } }, notAllowed);
}
