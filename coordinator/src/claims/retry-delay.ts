import type { CoordinatorConfig } from '../config.ts';

/**
 * How long a job waits after its `failures`-th failed attempt before the next one may start:
 * RETRY_BACKOFF_MS, doubled per further failure, at most RETRY_BACKOFF_MAX_MS. `failures` is the
 * job's attempts in its current run (an operator's retry resets it); the wait counts from the end
 * of its last attempt that failed or lost its lease (claim-rules.ts).
 */
export function retryDelayMs(failures: number, config: Pick<CoordinatorConfig, 'RETRY_BACKOFF_MS' | 'RETRY_BACKOFF_MAX_MS'>): number {
  if (failures <= 0 || config.RETRY_BACKOFF_MS === 0) return 0;
  return Math.min(config.RETRY_BACKOFF_MS * 2 ** Math.min(failures - 1, 20), config.RETRY_BACKOFF_MAX_MS);
}
