import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CheckoutResponse, CreateJobRequest, CreateJobResponse, ErrorResponse, Job, ProcessingResponse, UploadUrlResponse } from '@cutroom/shared/api';
import type { Ctx } from '../../context.ts';
import { checkoutCall, completeUploadCall, createJobCall, getJobCall, processCall, uploadUrlCall } from '../../service/index.ts';
import { credentialsOf, sendServed } from '../auth.ts';

export const JobIdParams = z.object({ id: z.uuid() });
const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };
const security = [{ bearer: [] }];

/** Job routes: each maps one service call to HTTP (credentials in, status + receipt headers out). */
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
          'Upload-based jobs (transcribe) take job_type, filename and content_type; next call GET /jobs/{id}/upload-url. ' +
          'With a session token the job starts pending (pay by hosted checkout_url, or answer the 402 of upload-url). ' +
          'Without one, a payment credential creates it paid and the response carries a new session_token.',
        response: { 201: CreateJobResponse, ...errors },
      },
    },
    async (req, reply) => {
      return reply.status(201).send(sendServed(reply, await createJobCall(ctx, credentialsOf(ctx, req), req.body)));
    },
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
      schema: { tags: ['jobs'], summary: 'Start a no-upload derivative job', security, params: JobIdParams, response: { 200: ProcessingResponse, ...errors } },
    },
    async (req) => processCall(ctx, credentialsOf(ctx, req), req.params.id),
  );
};
