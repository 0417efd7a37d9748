export { startAgent, type AgentHandle, type StartAgentOptions } from './agent.ts';
export { loadAgentConfig, AgentConfig } from './config.ts';
export { detectCapabilities, type DetectedCapabilities } from './capabilities/detect-capabilities.ts';
export { createCoordinatorClient, type CoordinatorClient } from './coordinator-client.ts';
export { PipelineError, StaleAttemptError, CoordinatorError, AttemptAbortedError } from './errors.ts';
export { systemClock, type Clock, type TimerHandle } from './clock.ts';
export { PIPELINES, pipelineFor, servableKinds } from './pipelines/registry.ts';
export type { Pipeline, PipelineContext, PipelineRegistry, AttemptOutcome } from './pipelines/pipeline.ts';
