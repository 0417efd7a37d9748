import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorResponse } from '@cutroom/shared/api';
import { JobStatus, PaymentStatus } from '@cutroom/shared/job-types';
import type { Ctx } from '../../context.ts';
import { jobEventsCall, type JobStreamEvent } from '../../service/index.ts';
import { credentialsOf } from '../auth.ts';

/**
 * How long one response streams before the server closes it (the client resumes with
 * Last-Event-ID): it bounds what a connection holds (a pending job may never move, a proxy may
 * cut idle-looking streams) and spreads long watchers over replicas as they come and go.
 */
export const STREAM_MAX_MS = 15 * 60_000;
/** A comment this often keeps proxies and the 120 s connection timeout from closing a quiet stream. */
export const KEEP_ALIVE_MS = 15_000;
/** The reconnection delay suggested to EventSource clients (`retry:`). */
export const RETRY_MS = 2000;

const EventId = z.string().regex(/^\d{1,16}$/, 'a job event id (digits)');
const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 429: ErrorResponse, 503: ErrorResponse };

/** The `data:` of each event, as /openapi.json documents it (and schemathesis checks every event against it). */
export const JobStreamEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('status'),
    id: EventId,
    job_id: z.uuid(),
    status: JobStatus,
    from: JobStatus.nullable(),
    reason: z.string(),
    at: z.iso.datetime(),
    payment_status: PaymentStatus,
    error_message: z.string().nullable(),
  }),
  z.object({ type: z.literal('progress'), job_id: z.uuid(), stage: z.string(), fraction: z.number().min(0).max(1), at: z.string() }),
  z.object({ type: z.literal('end'), job_id: z.uuid(), status: JobStatus }),
]);
// The documented shape and the one streamed are the same type (a compile-time check).
const sameShape = (e: JobStreamEvent): z.infer<typeof JobStreamEventSchema> => e;
void sameShape;

/** One server-sent event as OpenAPI 3.1 describes an event stream: the schema of each event. */
const SseEvent = z
  .object({
    event: z.enum(['status', 'progress', 'end']),
    data: z.string().meta({ contentMediaType: 'application/json', contentSchema: jsonSchemaOf(JobStreamEventSchema) }),
    id: EventId.optional().describe('status events: the job event id to resume after (Last-Event-ID)'),
    retry: z.number().int().optional(),
  })
  .describe('One server-sent event; the response is a stream of them');

/** A JSON Schema nested in the document (contentSchema): without its own $schema line. */
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'output' });
  return rest;
}

/** One SSE frame: status events carry their job_events id, so EventSource resumes after it. */
export function sseFrame(e: JobStreamEvent): string {
  return `${e.type === 'status' ? `id: ${e.id}\n` : ''}event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
}

/** GET /jobs/{id}/events: the job's event stream as server-sent events (service/event-calls.ts). */
export const eventRoutes: FastifyPluginAsyncZod<{ ctx: Ctx; maxStreamMs?: number; keepAliveMs?: number }> = async (app, opts) => {
  const { ctx, maxStreamMs = STREAM_MAX_MS, keepAliveMs = KEEP_ALIVE_MS } = opts;
  // Open streams end when the server closes, or app.close() would wait up to maxStreamMs for them.
  const open = new Set<AbortController>();
  app.addHook('preClose', (done) => {
    for (const ac of open) ac.abort();
    done();
  });

  app.get(
    '/jobs/:id/events',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Live job events (server-sent events): status changes, progress, end',
        description:
          'An alternative to polling GET /jobs/{id} (which stays the contract). A `text/event-stream` of `event: status` ' +
          '(`id:` = the job event id; data {type, id, job_id, status, from, reason, at, payment_status, error_message}), every status change from the first, ' +
          '`event: progress` (no id; data {type, job_id, stage, fraction, at}) when the running stage reports progress, and one `event: end` ' +
          '(data {type, job_id, status}) once the job is completed, failed or deleted, after which the server closes the response: close the EventSource then. ' +
          `Resumable: send the last id seen as the Last-Event-ID header (EventSource does on reconnect) or the last_event_id query parameter, and only later status events are sent. ` +
          `A response lasts at most ${STREAM_MAX_MS / 60_000} minutes (reconnect with Last-Event-ID); \`: keep-alive\` comments every ${KEEP_ALIVE_MS / 1000} s. ` +
          'Open streams are capped (MCP get_job_status waits count too): per session (STREAMS_PER_SESSION, default 10) and per client IP (STREAMS_PER_IP, 50) a 429 with Retry-After, per server process (STREAMS_MAX, 1000) a 503 with Retry-After.',
        security: [{ bearer: [] }],
        params: z.object({ id: z.uuid() }),
        querystring: z.object({ last_event_id: EventId.optional().describe('Resume after this status event id (the Last-Event-ID header wins)') }),
        // Loose: every other header (Authorization) must pass validation untouched.
        headers: z.looseObject({ 'last-event-id': EventId.optional().describe('Resume after this status event id (sent by EventSource on reconnect)') }),
        response: {
          200: {
            description: 'The event stream (text/event-stream)',
            content: { 'text/event-stream': { schema: SseEvent } },
          },
          ...errors,
        },
      },
    },
    async (req, reply) => {
      const ac = new AbortController();
      // The header is newer than the query: EventSource keeps the URL and sends the header on reconnect.
      const afterEventId = req.headers['last-event-id'] || req.query.last_event_id;
      // Refusals (401, 404/403, 400) are thrown here, before any byte of the stream.
      const events = await jobEventsCall(ctx, credentialsOf(ctx, req), req.params.id, { afterEventId, signal: ac.signal });
      const out = new PassThrough();
      const write = (chunk: string) => {
        if (!out.destroyed && !out.writableEnded) out.write(chunk);
      };
      const keepAlive = setInterval(() => write(': keep-alive\n\n'), keepAliveMs);
      const bound = setTimeout(() => ac.abort(), maxStreamMs);
      open.add(ac);
      // The response is gone (client left, `end` sent, bound reached): stop the stream and its timers.
      out.on('close', () => {
        ac.abort();
        open.delete(ac);
        clearInterval(keepAlive);
        clearTimeout(bound);
      });
      // The first bytes go out now: the client sees the headers (EventSource `open`) at once.
      write(`retry: ${RETRY_MS}\n\n`);
      void (async () => {
        try {
          for await (const e of events) write(sseFrame(e));
        } catch (err) {
          req.log.warn({ err, job_id: req.params.id }, 'job event stream failed');
        } finally {
          // After `end`, on abort or on failure alike: close the response (a client resumes with Last-Event-ID).
          if (!out.destroyed) out.end();
        }
      })();
      return (
        reply
          .type('text/event-stream')
          .header('cache-control', 'no-cache, no-store')
          .header('x-accel-buffering', 'no') // nginx: pass events through, never buffer them
          // A stream is piped, not serialized: the declared body type (one event) does not apply to it.
          .send(out as never)
      );
    },
  );
};
