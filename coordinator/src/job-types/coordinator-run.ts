import type { JobType } from '@cutroom/shared/job-types';
import { publishVideoJob } from '../publishing/publish-job.ts';
import type { CoordinatorRunDefinition } from './entry.ts';

/** Every job type the coordinator runs itself (ADR 0006): the `coordinator` entries of the registry (registry.ts). */
export const COORDINATOR_RUN_DEFINITIONS: Readonly<Partial<Record<JobType, CoordinatorRunDefinition>>> = { publish_video: publishVideoJob };
