import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink, TRPCClientError } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AdminRouter } from '../../coordinator/src/admin/router.ts';

/**
 * The admin API client: queries and mutations batched over HTTP, subscriptions over SSE, both to
 * this origin (the log-in cookie goes with every request). The router is imported as a type only:
 * nothing of the server is bundled.
 */
export const api = createTRPCClient<AdminRouter>({
  links: [
    splitLink({
      condition: (op) => op.type === 'subscription',
      true: httpSubscriptionLink({ url: '/admin/trpc' }),
      false: httpBatchLink({ url: '/admin/trpc' }),
    }),
  ],
});

type Out = inferRouterOutputs<AdminRouter>;
type In = inferRouterInputs<AdminRouter>;

export type Agent = Out['agents']['list'][number];
export type AgentState = Agent['state'];
export type AgentAction = Out['agents']['history'][number];
export type QueueKind = Out['queue']['stats'][number];
export type JobSummary = Out['jobs']['list']['jobs'][number];
export type JobPage = Out['jobs']['list'];
export type JobFilter = In['jobs']['list'];
export type JobStatus = NonNullable<JobFilter['status']>[number];
export type JobType = NonNullable<JobFilter['job_type']>[number];
export type Timeline = Out['jobs']['timeline'];
export type MoneySummary = Out['money']['summary'];
export type Ledger = MoneySummary['open_holds'][number];
export type OperatorRow = Out['operators']['list'][number];
export type Enrollment = Out['enrollment']['list'][number];
export type Minted = Out['enrollment']['mint'];

/** Every job status, in lifecycle order (the type check fails when the API gains one this list lacks). */
export const JOB_STATUSES = ['pending', 'uploading', 'extracting_audio', 'transcribing', 'analyzing', 'publishing', 'completed', 'failed', 'deleted'] as const;
export const ACTIVE_STATUSES: readonly JobStatus[] = ['extracting_audio', 'transcribing', 'analyzing', 'publishing'];
export const TERMINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'deleted'];

/** Every job type (same check as the statuses). */
export const JOB_TYPES = [
  'transcribe',
  'summarize',
  'find_clips',
  'extract_clip',
  'extract_vertical_clip',
  'edit_from_transcript',
  'publish_video',
  'clips_vertical',
  'clips_horizontal',
  'clips_from_video',
  'clips_youtube',
] as const;

type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const statusesComplete: Exactly<(typeof JOB_STATUSES)[number], JobStatus> = true;
const typesComplete: Exactly<(typeof JOB_TYPES)[number], JobType> = true;
void statusesComplete;
void typesComplete;

/** The API's own message for a failed call (a service refusal keeps its words), else the error's. */
export function errorText(err: unknown): string {
  if (err instanceof TRPCClientError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

export function isUnauthorized(err: unknown): boolean {
  return err instanceof TRPCClientError && (err.data as { code?: string } | undefined)?.code === 'UNAUTHORIZED';
}

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) throw new Error(typeof json['error'] === 'string' ? json['error'] : `${res.status} ${res.statusText}`);
  return json;
}

/** Trades an operator token for the console's httpOnly session cookie. */
export async function logIn(token: string): Promise<string> {
  const r = await post('/admin/api/login', { token });
  return String(r['name']);
}

export async function logOut(): Promise<void> {
  await post('/admin/api/logout', {});
}
