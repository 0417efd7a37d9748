import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CreateJobRequest, CreateJobResponse, ErrorResponse, Job, ProcessingResponse, UploadUrlResponse,
} from '@cutroom/shared/api';
import type { Ctx } from '../../context.ts';
import { createJob } from '../../jobs/create-job.ts';
import { loadOwnedJob } from '../../jobs/job-access.ts';
import { describeJob } from '../../jobs/job-view.ts';
import { completeUpload, getUploadUrl } from '../../jobs/upload.ts';
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
      tags: ['jobs'], summary: 'Create a job', security, body: CreateJobRequest,
      description: 'Upload-based jobs (transcribe) take job_type, filename and content_type; next call GET /jobs/{id}/upload-url.',
      response: { 201: CreateJobResponse, ...errors },
    },
  }, async (req, reply) => {
    const s = await session(bearerToken(req));
    return reply.status(201).send(await createJob(ctx, s.id, req.body));
  });

  app.get('/jobs/:id', {
    schema: { tags: ['jobs'], summary: 'Job status and outputs; poll until completed', security, params: JobIdParams, response: { 200: Job, ...errors } },
  }, async (req) => {
    const s = await session(bearerToken(req));
    return describeJob(ctx, await loadOwnedJob(ctx.db, req.params.id, s.id));
  });

  app.get('/jobs/:id/upload-url', {
    schema: { tags: ['jobs'], summary: 'Presigned URL to PUT the source file to', security, params: JobIdParams, response: { 200: UploadUrlResponse, ...errors } },
  }, async (req) => getUploadUrl(ctx, (await session(bearerToken(req))).id, req.params.id));

  app.post('/jobs/:id/complete-upload', {
    schema: { tags: ['jobs'], summary: 'Verify the upload and start processing', security, params: JobIdParams, response: { 200: ProcessingResponse, ...errors, 413: ErrorResponse } },
  }, async (req) => completeUpload(ctx, (await session(bearerToken(req))).id, req.params.id));

  app.post('/jobs/:id/process', {
    schema: { tags: ['jobs'], summary: 'Start a no-upload derivative job', security, params: JobIdParams, response: { 200: ProcessingResponse, ...errors } },
  }, async (req) => processJob(ctx, (await session(bearerToken(req))).id, req.params.id));
};
