/**
 * The operators' facade: everything the admin console's transport (admin/: tRPC and its login
 * routes) may call. Operator auth, enrollment tokens, agent control, routing tags, the blocklist,
 * the job and money views, and cancel/retry live behind it; admin/ imports nothing else of the
 * domain (coordinator/src/architecture/import-graph.test.ts).
 */
export { requestRotation, revokeCredentials, setAgentState, setAgentTags } from './agent-control.ts';
export { listAgents } from './agent-state.ts';
export { listActions } from './audit.ts';
export { clearBlock } from './blocklist.ts';
export { type EnrollTarget, listEnrollments, mintEnrollmentToken, revokeEnrollment } from './enrollment.ts';
export { cancelJob, retryJob } from './job-control.ts';
export { JobFilter, jobSummary, jobTimeline, listJobs } from './job-queries.ts';
export { moneySummary, reconcileRefund, resolveRefund } from './money.ts';
export { createOperator, listOperators, logIn, logOut, type Operator, operatorBySession, operatorByToken, revokeOperator } from './operator-auth.ts';
export { queueView } from './queue-view.ts';
