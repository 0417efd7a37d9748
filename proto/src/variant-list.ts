import { AGENT_JOB_TYPES, type AgentJobType } from '@cutroom/shared/contracts/index';

/** The variants in JOB_CONTRACTS' order, as the non-empty tuple a discriminated union takes. */
export function variantList<R extends Readonly<Record<AgentJobType, unknown>>>(variants: R): [R[AgentJobType], ...R[AgentJobType][]] {
  const [first, ...rest] = AGENT_JOB_TYPES.map((type) => variants[type]);
  if (first === undefined) throw new Error('no job type contracts');
  return [first, ...rest];
}
