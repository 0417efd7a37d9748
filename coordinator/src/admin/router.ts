import { z } from 'zod';
import { JobType } from '@cutroom/shared/job-types';
import { operatorProcedure as p, router } from './trpc.ts';
import { watch } from './watch.ts';
import {
  cancelJob,
  clearBlock,
  createOperator,
  JobFilter,
  jobSummary,
  jobTimeline,
  listActions,
  listAgents,
  listEnrollments,
  listJobs,
  listOperators,
  mintEnrollmentToken,
  moneySummary,
  queueView,
  reconcileRefund,
  requestRotation,
  resolveRefund,
  retryJob,
  revokeCredentials,
  revokeEnrollment,
  revokeOperator,
  setAgentState,
  setAgentTags,
} from '../operators/index.ts';

const AgentId = z.string().min(1).max(128);
const Tags = z.array(z.string().min(1).max(63)).max(32);
const JobId = z.uuid();
const Note = z.string().max(500);

/** The farm: agents, their work, and the operators' moves on them. */
const agentsRouter = router({
  list: p.query(({ ctx }) => listAgents(ctx.ctx)),
  watch: p.subscription(async function* ({ ctx, signal }) {
    yield* watch(() => listAgents(ctx.ctx), signal);
  }),
  drain: p.input(z.object({ agent_id: AgentId })).mutation(({ ctx, input }) => setAgentState(ctx.ctx, ctx.operator, input.agent_id, 'draining')),
  resume: p.input(z.object({ agent_id: AgentId })).mutation(({ ctx, input }) => setAgentState(ctx.ctx, ctx.operator, input.agent_id, 'active')),
  retire: p.input(z.object({ agent_id: AgentId })).mutation(({ ctx, input }) => setAgentState(ctx.ctx, ctx.operator, input.agent_id, 'retired')),
  setTags: p.input(z.object({ agent_id: AgentId, tags: Tags })).mutation(({ ctx, input }) => setAgentTags(ctx.ctx, ctx.operator, input.agent_id, input.tags)),
  rotateCredential: p.input(z.object({ agent_id: AgentId })).mutation(({ ctx, input }) => requestRotation(ctx.ctx, ctx.operator, input.agent_id)),
  revokeCredentials: p.input(z.object({ agent_id: AgentId })).mutation(({ ctx, input }) => revokeCredentials(ctx.ctx, ctx.operator, input.agent_id)),
  clearBlock: p
    .input(z.object({ agent_id: AgentId, job_type: JobType }))
    .mutation(({ ctx, input }) => clearBlock(ctx.ctx, ctx.operator, input.agent_id, input.job_type)),
  history: p.input(z.object({ agent_id: AgentId })).query(({ ctx, input }) => listActions(ctx.ctx.db, { kind: 'agent', id: input.agent_id })),
});

/** Adding hosts: one-use tokens and the command to run on the host. */
const enrollmentRouter = router({
  mint: p
    .input(
      z.object({
        agent_id: z
          .string()
          .min(1)
          .max(128)
          .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/)
          .optional(),
        tags: Tags.default([]),
      }),
    )
    .mutation(({ ctx, input }) => mintEnrollmentToken(ctx.ctx, ctx.operator, { agentId: input.agent_id, tags: input.tags }, ctx.enrollTarget())),
  list: p.query(({ ctx }) => listEnrollments(ctx.ctx)),
  revoke: p.input(z.object({ id: z.uuid() })).mutation(({ ctx, input }) => revokeEnrollment(ctx.ctx, ctx.operator, input.id)),
});

/** Queue depth and wait per work kind. */
const queueRouter = router({
  stats: p.query(({ ctx }) => queueView(ctx.ctx)),
  watch: p.subscription(async function* ({ ctx, signal }) {
    yield* watch(() => queueView(ctx.ctx), signal);
  }),
});

const jobsRouter = router({
  list: p.input(JobFilter).query(({ ctx, input }) => listJobs(ctx.ctx, input)),
  /** The filtered list, live: the first page re-read every second. */
  watchList: p.input(JobFilter).subscription(async function* ({ ctx, input, signal }) {
    yield* watch(() => listJobs(ctx.ctx, input), signal);
  }),
  timeline: p.input(z.object({ job_id: JobId })).query(({ ctx, input }) => jobTimeline(ctx.ctx, input.job_id)),
  watchTimeline: p.input(z.object({ job_id: JobId })).subscription(async function* ({ ctx, input, signal }) {
    yield* watch(() => jobTimeline(ctx.ctx, input.job_id), signal);
  }),
  cancel: p
    .input(z.object({ job_id: JobId, note: Note.default('') }))
    .mutation(async ({ ctx, input }) => jobSummary(await cancelJob(ctx.ctx, ctx.operator, input.job_id, input.note))),
  retry: p.input(z.object({ job_id: JobId })).mutation(async ({ ctx, input }) => jobSummary(await retryJob(ctx.ctx, ctx.operator, input.job_id))),
});

const moneyRouter = router({
  summary: p.input(z.object({ days: z.number().int().min(1).max(366).default(14) })).query(({ ctx, input }) => moneySummary(ctx.ctx, input.days)),
  watch: p.input(z.object({ days: z.number().int().min(1).max(366).default(14) })).subscription(async function* ({ ctx, input, signal }) {
    yield* watch(() => moneySummary(ctx.ctx, input.days), signal, 2_000);
  }),
  reconcileRefund: p.input(z.object({ id: z.number().int().positive() })).mutation(({ ctx, input }) => reconcileRefund(ctx.ctx, ctx.operator, input.id)),
  resolveRefund: p
    .input(z.object({ id: z.number().int().positive(), note: Note.min(3) }))
    .mutation(({ ctx, input }) => resolveRefund(ctx.ctx, ctx.operator, input.id, input.note)),
});

const operatorsRouter = router({
  me: p.query(({ ctx }) => ({ name: ctx.operator.name })),
  list: p.query(({ ctx }) => listOperators(ctx.ctx)),
  create: p
    .input(
      z.object({
        name: z
          .string()
          .min(1)
          .max(64)
          .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]*$/),
      }),
    )
    .mutation(({ ctx, input }) => createOperator(ctx.ctx, ctx.operator, input.name)),
  revoke: p.input(z.object({ name: z.string().min(1).max(64) })).mutation(({ ctx, input }) => revokeOperator(ctx.ctx, ctx.operator, input.name)),
  /** Who did what, newest first (the whole farm's operator history). */
  actions: p
    .input(z.object({ limit: z.number().int().min(1).max(500).default(100) }))
    .query(({ ctx, input }) => listActions(ctx.ctx.db, undefined, input.limit)),
});

/** The admin API (tRPC over the coordinator's fastify, at /admin/trpc): the console's and operators' scripts' one door. */
export const adminRouter = router({
  agents: agentsRouter,
  enrollment: enrollmentRouter,
  queue: queueRouter,
  jobs: jobsRouter,
  money: moneyRouter,
  operators: operatorsRouter,
});

export type AdminRouter = typeof adminRouter;
