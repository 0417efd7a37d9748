import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CheckoutResponse, CreateJobRequest, CreateJobResponse, ErrorResponse, Job, ProcessingResponse, UploadUrlResponse,
} from '@cutroom/shared/api';
import type { Ctx } from '../../context.ts';
import { createJob, type JobCaller } from '../../jobs/create-job.ts';
import { loadOwnedJob } from '../../jobs/job-access.ts';
import { describeJob } from '../../jobs/job-view.ts';
import { completeUpload, getUploadUrl, requireUploadJob } from '../../jobs/upload.ts';
import type { JobRow } from '../../jobs/job-access.ts';
import { checkoutFor } from '../../payments/checkout.ts';
import { hasCredential } from '../../payments/gate.ts';
import { payForJob, reloadJob } from '../../payments/job-payments.ts';
import { applyHeaders, jobForGatedCall, paymentInputOf } from '../payment-input.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { processJob } from '../../jobs/process-job.ts';
import { requireSession } from '../../sessions/session-service.ts';
import { bearerToken } from '../auth.ts';

export const JobIdParams = z.object({ id: z.uuid() });
const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };
const security = [{ bearer: [] }];

export const jobRoutes: FastifyPluginAsyncZod<{ ctx: Ctx }> = async (app, { ctx }) => {
  const deps = { db: ctx.db, clock: ctx.clock, ttlHours: ctx.config.SESSION_TTL_HOURS };
  const session = async (token: string | null) => requireSession(deps, token);

  app.post('/jobs', {
    schema: {
      tags: ['jobs'], summary: 'Create a job', security: [...security, { payment: [] }], body: CreateJobRequest,
      description: 'Upload-based jobs (transcribe) take job_type, filename and content_type; next call GET /jobs/{id}/upload-url. '
        + 'With a session token the job starts pending (pay by hosted checkout_url, or answer the 402 of upload-url). '
        + 'Without one, a payment credential creates it paid and the response carries a new session_token.',
      response: { 201: CreateJobResponse, ...errors },
    },
  }, async (req, reply) => {
    const created = await createJob(ctx, await callerOf(req), req.body);
    applyHeaders(reply, created.headers);
    return reply.status(201).send(created.body);
  });

  app.get('/jobs/:id', {
    schema: { tags: ['jobs'], summary: 'Job status and outputs; poll until completed', security, params: JobIdParams, response: { 200: Job, ...errors } },
  }, async (req) => {
    const s = await session(bearerToken(req));
    return describeJob(ctx, await loadOwnedJob(ctx.db, req.params.id, s.id));
  });

  app.get('/jobs/:id/upload-url', {
    schema: { tags: ['jobs'], summary: 'Presigned URL to PUT the source file to (402 until the job is paid)', security: [...security, { payment: [] }], params: JobIdParams, response: { 200: UploadUrlResponse, ...errors } },
  }, async (req, reply) => getUploadUrl(ctx, await paidJob(req, reply, req.params.id)));

  app.post('/jobs/:id/complete-upload', {
    schema: { tags: ['jobs'], summary: 'Verify the upload and start processing (402 until the job is paid)', security: [...security, { payment: [] }], params: JobIdParams, response: { 200: ProcessingResponse, ...errors, 413: ErrorResponse } },
  }, async (req, reply) => completeUpload(ctx, await paidJob(req, reply, req.params.id)));

  app.post('/jobs/:id/checkout', {
    schema: { tags: ['jobs'], summary: 'Get or create the hosted card checkout of a job', security, params: JobIdParams, response: { 200: CheckoutResponse, ...errors } },
  }, async (req) => {
    const job = await loadOwnedJob(ctx.db, req.params.id, (await session(bearerToken(req))).id);
    return checkoutFor(ctx, job);
  });

  /**
   * Who creates the job. A bearer token is authenticated first (a bad one is 401, never 402).
   * Without one, billing on: the payment path (a credential pays, no credential gets the 402).
   */
  async function callerOf(req: FastifyRequest): Promise<JobCaller> {
    const token = bearerToken(req);
    if (token) return { sessionId: (await session(token)).id };
    const payment = paymentInputOf(ctx, req);
    if (ctx.billing.enabled && (hasCredential(payment) || !payment.authorization)) return { sessionId: null, payment };
    return { sessionId: (await session(null)).id };
  }

  /** Loads the job for a gated call and, while it is unpaid, takes payment (or answers 402). */
  async function paidJob(req: FastifyRequest, reply: FastifyReply, id: string): Promise<JobRow> {
    const job = await jobForGatedCall(ctx, req, id);
    requireUploadJob(job);
    if (job.paymentStatus !== 'pending' || !ctx.billing.enabled) return job;
    const paid = await payForJob(ctx, job, paymentInputOf(ctx, req));
    applyHeaders(reply, paid.headers);
    return reloadJob(ctx, job.id);
  }

  app.post('/jobs/:id/process', {
    schema: { tags: ['jobs'], summary: 'Start a no-upload derivative job', security, params: JobIdParams, response: { 200: ProcessingResponse, ...errors } },
  }, async (req) => processJob(ctx, (await session(bearerToken(req))).id, req.params.id));
};

