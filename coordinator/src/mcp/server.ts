import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { type CallToolResult, CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Ctx } from '../context.ts';
import { describeIssues } from '../http/error-handler.ts';
import type { RateLimitGroup } from '../http/rate-limit.ts';
import { AppError, isAppError, type NextCall } from '../lib/app-error.ts';
import { errorClassOf } from '../lib/error-class.ts';
import { PaymentProblem } from '../payments/types.ts';
import { SERVICE_VERSION } from '../version.ts';
import { MCP_TOOLS, PAYMENT_RULES, toolInputJsonSchema, toolNamed } from './catalog.ts';
import { JsonRpcError, paymentErrorToMcp, receiptMeta } from './payment.ts';
import { type ToolCall, toolCallOf } from './tool-call.ts';
import { TOOL_HANDLERS, type ToolResult } from './tools/index.ts';

/** What the server tells an agent at initialize, before it reads any tool. */
export const MCP_INSTRUCTIONS =
  'cutroom: paid audio/video post-production, per job, no account. For clips from a video start with find_clips (it includes the transcript; do not call transcribe first), ' +
  'then cut chosen candidates without re-uploading (extract_vertical_clip, extract_clip, clips_vertical, clips_horizontal, clips_from_job), or buy everything in one call with clips_from_video / clips_youtube. ' +
  'Upload tools return an upload_url: PUT the file there, call complete_upload, then get_job_status with wait_seconds (progress notifications when you send a progressToken). ' +
  'transcribe, summarize and find_clips take source_url (the https URL of the media file) instead of an upload: the call starts the job, with no HTTP outside MCP. list_jobs finds your jobs again. ' +
  'Pass session_token (from create_session or a paid call) to every call, or send Authorization: Bearer. ' +
  `Paying: ${PAYMENT_RULES} Failed jobs are refunded automatically.`;

/** How MCP names the call a service error suggests next. */
const NEXT_TOOL: Record<NextCall, string> = {
  create_session: 'call create_session and pass its session_token',
  upload_url: 'call get_upload_url',
  complete_upload: 'call complete_upload',
  process: 'repeat the same tool call',
  checkout: 'pay at the checkout_url, then repeat the call',
};

function toolResult(r: ToolResult, call: ToolCall): CallToolResult {
  const meta = r.receipt ? receiptMeta(r.receipt, call.credential?.challengeId) : undefined;
  return {
    content: [{ type: 'text', text: r.text ?? JSON.stringify(r.value, null, 2) }],
    structuredContent: r.value,
    ...(meta && { _meta: meta }),
  };
}

/** A refused call as a tool error the model reads (isError), with the taxonomy's code and what to do next. */
function toolError(ctx: Ctx, err: unknown, tool: string): CallToolResult {
  const cls = errorClassOf(err);
  if (cls.code === 'internal') ctx.logger.error({ err, tool }, 'mcp tool failed');
  const next = isAppError(err) && err.next ? NEXT_TOOL[err.next.call] : undefined;
  const problems = isAppError(err) ? err.problems : undefined;
  const error = next ? `${cls.message} (next: ${next})` : cls.message;
  return {
    isError: true,
    content: [{ type: 'text', text: problems ? `${error}\n${problems.map((p) => `line ${p.line}: ${p.reason}`).join('\n')}` : error }],
    structuredContent: { error, code: cls.code, status: cls.status, retryable: cls.retryable, ...(next && { next }), ...(problems && { problems }) },
  };
}

/** REST answers 429 with Retry-After; a tool answers the same as a retryable tool error. */
function rateLimited(tool: string, seconds: number): CallToolResult {
  const error = `too many requests: retry ${tool} in ${seconds} s`;
  return {
    isError: true,
    content: [{ type: 'text', text: error }],
    structuredContent: { error, code: 'rate_limited', status: 429, retryable: true, retry_after_seconds: seconds },
  };
}

/**
 * One MCP server for one HTTP request (the endpoint is stateless: any coordinator replica answers
 * any request, and nothing lives between requests but the database). The low-level Server is
 * used, not McpServer, so a payment error leaves as the JSON-RPC error the MPP transport draft
 * names (-32042) rather than a tool result, and so input schemas are our zod schemas as is.
 */
export function buildMcpServer(
  ctx: Ctx,
  limits: { count: (group: RateLimitGroup, session?: string | null) => Promise<number | null>; clientIp?: string | undefined },
): Server {
  const server = new Server(
    { name: 'cutroom', title: 'cutroom: paid audio/video post-production', version: SERVICE_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: MCP_INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: MCP_TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: toolInputJsonSchema(t) as { type: 'object' },
      annotations: { title: t.title, ...t.hints },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const name = req.params.name;
    const tool = toolNamed(name);
    const handler = TOOL_HANDLERS[name];
    if (!tool || !handler)
      throw new JsonRpcError(ErrorCode.InvalidParams, `unknown tool ${name}; the tools are ${MCP_TOOLS.map((t) => t.name).join(', ')}`, {});
    // A session token passed as the tool's argument is counted in that session's bucket, as the header's would be.
    const argToken = (req.params.arguments as Record<string, unknown> | undefined)?.['session_token'];
    const wait = tool.limit ? await limits.count(tool.limit, typeof argToken === 'string' ? argToken : null) : null;
    if (wait !== null) return rateLimited(name, wait);
    const parsed = tool.input.safeParse(req.params.arguments ?? {});
    if (!parsed.success) {
      return toolError(ctx, new AppError('invalid_request', `invalid arguments for ${name}: ${describeIssues(parsed.error.issues)}`), name);
    }
    const progressToken = req.params._meta?.progressToken;
    let call: ToolCall;
    try {
      call = toolCallOf(ctx, {
        args: parsed.data,
        headers: extra.requestInfo?.headers ?? {},
        meta: req.params._meta as Record<string, unknown> | undefined,
        signal: extra.signal,
        clientIp: limits.clientIp,
        progress: progressToken === undefined ? null : (p) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken, ...p } }),
      });
    } catch (err) {
      if (err instanceof PaymentProblem) throw paymentErrorToMcp(err)!;
      return toolError(ctx, err, name);
    }
    try {
      return toolResult(await handler(call, parsed.data), call);
    } catch (err) {
      if (err instanceof McpError || err instanceof JsonRpcError) throw err;
      const payment = paymentErrorToMcp(err);
      if (payment) throw payment;
      return toolError(ctx, err, name);
    }
  });
  return server;
}
