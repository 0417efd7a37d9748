import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CheckoutResponse,
  CreateJobRequest,
  CreateJobResponse,
  ErrorResponse,
  Job,
  JobList,
  ListJobsQuery,
  ProcessingResponse,
  UploadUrlResponse,
} from '@cutroom/shared/api';
import type { Ctx } from '../../context.ts';
import { checkoutCall, completeUploadCall, createJobCall, getJobCall, listJobsCall, processCall, typesByCreation, uploadUrlCall } from '../../service/index.ts';
import { credentialsOf, sendServed } from '../auth.ts';

export const JobIdParams = z.object({ id: z.uuid() });
const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };
const security = [{ bearer: [] }];

/** Job routes: each maps one service call to HTTP (credentials in, status + receipt headers out). */
// The types each route names, from the registry (an added type appears in /openapi.json by itself).
const byCreation = typesByCreation();
const list = (types: readonly string[]) => types.join(', ');

export const jobRoutes: FastifyPluginAsyncZod<{ ctx: Ctx }> = async (app, { ctx }) => {
  app.post(
    '/jobs',
    {
      config: { limit: 'job_create' },
      schema: {
        tags: ['jobs'],
        summary: 'Create a job',
        security: [...security, { payment: [] }],
        body: CreateJobRequest,
        description:
          `Upload-based jobs (${list(byCreation.uploads)}) take job_type, filename and content_type (and their own options); next call GET /jobs/{id}/upload-url. ` +
          `clips_vertical is created at POST /jobs/{parent_job_id}/derivatives (a bundle of a find_clips job, one card checkout for N clips), and ${list(byCreation.mcpOnly)} through their MCP tools: here they are a 400 naming where (see job_type). ` +
          'With a session token the job starts pending (pay by hosted checkout_url, or answer the 402 of upload-url). ' +
          'Without one, a payment credential creates it paid and the response carries a new session_token. ' +
          'Without a session or a credential the answer is 402 with the challenges of paid creation (nothing is written); for the hosted card checkout, create a session first: its 201 carries checkout_url. ' +
          `No-upload derivatives (${list(byCreation.derivatives)}) take source_job_id and their own fields (extract_clip: segments; extract_vertical_clip: start/end and optional profile, subject, subject_id, subject_box, t_ref, subject_x_offset; edit_from_transcript: edit; each field's description names its types) and ` +
          'need the bearer of the session that owns the parent; they are created free and unpaid (price_cents, next_endpoint process, no checkout_url): POST /jobs/{id}/process pays and starts them. ' +
          'The parent must be completed, still hold its source and be within its retention (410 otherwise). ' +
          'publish_video (source_job_id of a transcribe or summarize job of a video; optional title <= 100 chars, description, privacy_status default private) is created and paid the same way; ' +
          'it needs a video host account connected to the session (POST /connections/video-host; 409 before payment otherwise) and a server with publishing configured (400 otherwise).',
        response: { 201: CreateJobResponse, ...errors, 410: ErrorResponse },
      },
    },
    async (req, reply) => {
      return reply.status(201).send(sendServed(reply, await createJobCall(ctx, credentialsOf(ctx, req), req.body)));
    },
  );

  app.get(
    '/jobs',
    {
      schema: {
        tags: ['jobs'],
        summary: "List the session's jobs, newest first (not in the spec)",
        description:
          'One page of the jobs of the session whose bearer token is sent, newest first, without outputs (GET /jobs/{id} gives them with fresh download URLs). ' +
          'Filters (status, job_type, source_job_id, bundle_job_id, created_after, created_before) combine with AND. ' +
          'next_cursor is null on the last page; otherwise pass it as cursor, with the same filters, for the next older page. Jobs created while paging do not shift pages.',
        security,
        querystring: ListJobsQuery,
        response: { 200: JobList, 400: ErrorResponse, 401: ErrorResponse },
      },
    },
    async (req) => listJobsCall(ctx, credentialsOf(ctx, req), req.query),
  );

  app.get(
    '/jobs/:id',
    {
      schema: { tags: ['jobs'], summary: 'Job status and outputs; poll until completed', security, params: JobIdParams, response: { 200: Job, ...errors } },
    },
    async (req) => getJobCall(ctx, credentialsOf(ctx, req), req.params.id),
  );

  app.get(
    '/jobs/:id/upload-url',
    {
      config: { limit: 'payment' },
      schema: {
        tags: ['jobs'],
        summary: 'Presigned URL to PUT the source file to (402 until the job is paid)',
        security: [...security, { payment: [] }],
        params: JobIdParams,
        response: { 200: UploadUrlResponse, ...errors },
      },
    },
    async (req, reply) => {
      return sendServed(reply, await uploadUrlCall(ctx, credentialsOf(ctx, req), req.params.id));
    },
  );

  app.post(
    '/jobs/:id/complete-upload',
    {
      config: { limit: 'payment' },
      schema: {
        tags: ['jobs'],
        summary: 'Verify the upload and start processing (402 until the job is paid)',
        security: [...security, { payment: [] }],
        params: JobIdParams,
        response: { 200: ProcessingResponse, ...errors, 413: ErrorResponse },
      },
    },
    async (req, reply) => {
      return sendServed(reply, await completeUploadCall(ctx, credentialsOf(ctx, req), req.params.id));
    },
  );

  app.post(
    '/jobs/:id/checkout',
    {
      config: { limit: 'payment' },
      schema: {
        tags: ['jobs'],
        summary: 'Get or create the hosted card checkout of a job',
        security,
        params: JobIdParams,
        response: { 200: CheckoutResponse, ...errors },
      },
    },
    async (req) => checkoutCall(ctx, credentialsOf(ctx, req), req.params.id),
  );

  app.post(
    '/jobs/:id/process',
    {
      config: { limit: 'payment' },
      schema: {
        tags: ['jobs'],
        summary: `Pay for and start a no-upload derivative job (${list(byCreation.derivatives)})`,
        description:
          'Unpaid: answers 402 with the payment challenge (MPP methods evm and card, x402); retry with `Authorization: Payment <credential>` ' +
          '(or the bearer plus the credential) and the job is paid and queued in one call. Billing off or already paid: just starts it. ' +
          'The parent is checked first: an expired or deleted parent answers 410 before any payment. Repeating the call on a running job answers processing.',
        security: [...security, { payment: [] }],
        params: JobIdParams,
        response: { 200: ProcessingResponse, ...errors, 410: ErrorResponse },
      },
    },
    async (req, reply) => sendServed(reply, await processCall(ctx, credentialsOf(ctx, req), req.params.id)),
  );
};
