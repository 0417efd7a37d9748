import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { type AgentJobType, JOB_CONTRACTS } from '@cutroom/shared/contracts/index';
import { Assignment, CompleteRequest, type ExtractVerticalClipComplete, type FindClipsAssignment, WorkKind } from './messages.ts';

const contracts = Object.values(JOB_CONTRACTS);
const variantOf = (union: typeof Assignment | typeof CompleteRequest, type: string) =>
  union.options.find((o) => o.shape.job_type.value === type) as z.ZodObject | undefined;

describe('the Assignment and CompleteRequest variants', () => {
  it('are one per job type contract, in the contracts’ order', () => {
    const types = Object.keys(JOB_CONTRACTS);
    expect(Assignment.options.map((o) => o.shape.job_type.value)).toEqual(types);
    expect(CompleteRequest.options.map((o) => o.shape.job_type.value)).toEqual(types);
    expectTypeOf<Assignment['job_type']>().toEqualTypeOf<AgentJobType>();
    expectTypeOf<CompleteRequest['job_type']>().toEqualTypeOf<AgentJobType>();
    // Built by one map over the contracts (no line per type), each variant keeps its own types.
    expectTypeOf<z.infer<typeof FindClipsAssignment>['params']>().toEqualTypeOf<z.infer<typeof JOB_CONTRACTS.find_clips.params>>();
    expectTypeOf<z.infer<typeof FindClipsAssignment>['job_type']>().toEqualTypeOf<'find_clips'>();
    expectTypeOf<z.infer<typeof ExtractVerticalClipComplete>['loudness']>().toEqualTypeOf<
      z.infer<typeof JOB_CONTRACTS.extract_vertical_clip.completion.loudness>
    >();
  });

  it('carry their contract’s params in the assignment, and its completion fields (in order) in the complete request', () => {
    for (const c of contracts) {
      const assignment = variantOf(Assignment, c.type)!;
      expect(assignment.shape['params'], c.type).toBe(c.params);
      expect(assignment.shape['kind'], c.type).toBe(WorkKind);
      const complete = variantOf(CompleteRequest, c.type)!;
      const own = Object.keys(complete.shape).filter((k) => !['v', 'job_id', 'attempt_id', 'agent_id', 'stats', 'job_type', 'outputs'].includes(k));
      expect(own, c.type).toEqual(Object.keys(c.completion));
      for (const [field, schema] of Object.entries(c.completion)) expect(complete.shape[field], `${c.type}.${field}`).toBe(schema);
    }
  });

  it('keep the wire’s field order: the fence and stats, job_type, the type’s own fields, outputs', () => {
    const complete = variantOf(CompleteRequest, 'extract_vertical_clip')!;
    expect(Object.keys(complete.shape)).toEqual(['v', 'job_id', 'attempt_id', 'agent_id', 'stats', 'job_type', 'media', 'video', 'loudness', 'outputs']);
    const assignment = variantOf(Assignment, 'find_clips')!;
    expect(Object.keys(assignment.shape)).toEqual(['v', 'job_id', 'attempt_id', 'kind', 'lease_ms', 'outputs', 'job_type', 'source', 'params']);
  });
});
