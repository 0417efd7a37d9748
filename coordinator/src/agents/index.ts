/**
 * The agents' facade: everything the internal agent routes (http/routes/agents.ts) may call.
 * Identity (enrollment exchange, credential rotation, authentication) lives in agent-identity/,
 * the work (register, claim, heartbeat, stages, completion, failure, the NATS credential) here;
 * the transport imports nothing else of the domain (coordinator/src/architecture/import-graph.test.ts).
 */
export { type AgentIdentity, authenticateAgent } from '../agent-identity/agent-auth.ts';
export { enrollAgent, rotateCredential } from '../agent-identity/credentials.ts';
export { completeAttempt, failAttempt, heartbeat, reportStage } from './attempts.ts';
export { claimJob } from './claim.ts';
export { natsCredential } from './nats-credential.ts';
export { registerAgent } from './register.ts';
