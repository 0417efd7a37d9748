import { describe, expect, it } from 'vitest';
import { WORK_KINDS } from '@cutroom/proto';
import { CreateJobRequest } from '@cutroom/shared/api';
import { BUNDLE_JOB_TYPES } from '@cutroom/shared/bundles';
import { JobType, JOB_TYPES } from '@cutroom/shared/job-types';
import { AGENT_PRODUCTS } from '@cutroom/shared/products';
import { canTransition } from '../jobs/transitions.ts';
import { JOB_TYPE_DEFINITIONS, definitionOf } from './agent-types.ts';
import { creatableEntry } from './lifecycle.ts';
import { JOB_TYPE_REGISTRY } from './registry.ts';

const defs = Object.values(JOB_TYPE_DEFINITIONS);

const runnerOf = (t: JobType) => JOB_TYPE_REGISTRY[t].runner;

describe('job-type registry', () => {
  it('has one entry for every job type of the enum, under its own name, each with its runner', () => {
    expect(Object.keys(JOB_TYPE_REGISTRY).sort()).toEqual([...JobType.options].sort());
    for (const [name, entry] of Object.entries(JOB_TYPE_REGISTRY)) expect(entry.type).toBe(name);
    expect(JobType.options.filter((t) => runnerOf(t) === 'composite').sort()).toEqual([...BUNDLE_JOB_TYPES, ...AGENT_PRODUCTS].sort());
    expect(JobType.options.filter((t) => runnerOf(t) === 'coordinator')).toEqual(['publish_video']);
  });

  it('defines exactly the job types shared marks available (bundles and products aside: their children run; publish_video aside: the coordinator runs it), each under its own name', () => {
    const available = JobType.options.filter((t) => JOB_TYPES[t].available && runnerOf(t) === 'agent');
    expect(Object.keys(JOB_TYPE_DEFINITIONS).sort()).toEqual([...available].sort());
    for (const [name, def] of Object.entries(JOB_TYPE_DEFINITIONS)) {
      expect(def.type).toBe(name);
      expect(def.facts).toBe(JOB_TYPES[def.type]);
    }
  });

  it('leaves publish_video to the coordinator (no agent definition), and every other type of the enum is built', () => {
    expect(runnerOf('publish_video')).toBe('coordinator');
    expect(JOB_TYPE_DEFINITIONS.publish_video).toBeUndefined();
    expect(JobType.options.filter((t) => !JOB_TYPES[t].available)).toEqual([]);
  });

  it('sends a bundle type to the derivatives call instead of defining it', () => {
    expect(() => creatableEntry('clips_vertical')).toThrow(/POST \/jobs\/\{parent_job_id\}\/derivatives/);
    expect(() => creatableEntry('clips_horizontal')).toThrow(/offered through the MCP tool/);
  });

  it('refuses the agent products (no agent definition: their children run), naming their MCP tool', () => {
    expect(() => creatableEntry('clips_from_video')).toThrow(/clips_from_video is an agent product offered through the MCP tool/);
    expect(() => creatableEntry('clips_youtube')).toThrow(/clips_youtube is an agent product/);
    expect(() => definitionOf('clips_youtube')).toThrow(/no agent job type definition for clips_youtube/);
  });

  it('walks each type’s stages through the transition table: queue, forward, requeue, complete, fail', () => {
    for (const def of defs) {
      const [first] = def.stages;
      const queueFrom = def.facts.input.kind === 'upload' ? 'uploading' : 'pending';
      expect(canTransition(queueFrom, first), `${def.type}: ${queueFrom} → ${first}`).toBe(true);
      def.stages.forEach((s, i) => {
        if (i > 0) expect(canTransition(def.stages[i - 1]!, s), `${def.type}: ${def.stages[i - 1]} → ${s}`).toBe(true);
        expect(canTransition(s, first), `${def.type}: requeue ${s} → ${first}`).toBe(true);
        expect(canTransition(s, 'failed'), `${def.type}: ${s} → failed`).toBe(true);
      });
      expect(canTransition(def.stages.at(-1)!, 'completed'), `${def.type}: completes`).toBe(true);
    }
  });

  it('serves each type on a known work kind, with roles that name written files and request fields from CreateJobRequest', () => {
    for (const def of defs) {
      expect(WORK_KINDS).toContain(def.workKind);
      for (const role of def.roles) {
        expect(def.files[role.file], `${def.type}: role ${role.role}`).toBeDefined();
        for (const file of Object.values(role.meta ?? {})) expect(def.files[file]).toBeDefined();
      }
      for (const field of Object.keys(def.request.shape)) expect(Object.keys(CreateJobRequest.shape)).toContain(field);
    }
  });
});
