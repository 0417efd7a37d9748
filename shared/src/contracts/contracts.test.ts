import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BUNDLE_JOB_TYPES } from '../bundles.ts';
import { JobType } from '../job-types.ts';
import { AGENT_PRODUCTS } from '../products.ts';
import { AGENT_JOB_TYPES, JOB_CONTRACTS } from './index.ts';
import { WORK_KINDS } from './work-kinds.ts';

const contracts = Object.entries(JOB_CONTRACTS);
/** Fields every complete request carries whatever its type: a contract's completion may not name them. */
const COMPLETE_BASE_FIELDS = ['v', 'job_id', 'attempt_id', 'agent_id', 'stats', 'job_type', 'outputs'];

describe('JOB_CONTRACTS', () => {
  it('holds each contract under its own job type, types of the enum that agents run (no bundle, no product)', () => {
    for (const [key, c] of contracts) {
      expect(c.type).toBe(key);
      expect(JobType.options).toContain(key);
      expect([...BUNDLE_JOB_TYPES, ...AGENT_PRODUCTS], key).not.toContain(key);
    }
    expect(AGENT_JOB_TYPES).toEqual(Object.keys(JOB_CONTRACTS));
  });

  it('names a known work kind, params as an object schema, and completion fields that are not the common ones', () => {
    for (const [type, c] of contracts) {
      expect(WORK_KINDS, type).toContain(c.workKind);
      expect(c.params, type).toBeInstanceOf(z.ZodObject);
      for (const [field, schema] of Object.entries(c.completion)) {
        expect(COMPLETE_BASE_FIELDS, `${type}.completion.${field}`).not.toContain(field);
        expect(schema, `${type}.completion.${field}`).toBeInstanceOf(z.ZodType);
      }
    }
  });

  it('gives every JSON output a schema and no other output one, under names that are safe storage keys', () => {
    for (const [type, c] of contracts) {
      expect(Object.keys(c.outputs).length, type).toBeGreaterThan(0);
      for (const [name, spec] of Object.entries(c.outputs)) {
        expect(name, type).toMatch(/^[a-z][a-z0-9_]*$/);
        const isJson = spec.contentType === 'application/json';
        expect('schema' in spec && spec.schema instanceof z.ZodType, `${type}.${name}: a schema iff JSON`).toBe(isJson);
      }
      // An attempt always writes something: at least one output is not optional.
      expect(
        Object.values(c.outputs).some((spec) => !('isOptional' in spec)),
        type,
      ).toBe(true);
    }
  });
});
