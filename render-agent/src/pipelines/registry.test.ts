import { describe, expect, it } from 'vitest';
import { WORK_KINDS } from '@cutroom/proto';
import type { HostFacts } from '../capabilities/requirements.ts';
import { loadAgentConfig } from '../config.ts';
import type { PipelineNeeds, PipelineRegistry } from './pipeline.ts';
import { PIPELINES, pipelineFor, servableKinds } from './registry.ts';
import { transcribePipeline } from './transcribe.ts';

const config = loadAgentConfig({ COORDINATOR_URL: 'http://127.0.0.1:8080', AGENT_TOKEN: 't', NATS_URL: 'nats://127.0.0.1:4222' });
const healthy: HostFacts = {
  ffmpeg: { version: '7.1.1', encoders: ['aac', 'libx264'] },
  embeddingModel: true,
  nvenc: false,
  cuda: { available: false, devices: [] },
  whisperModels: { isRunnable: true, models: ['tiny.en'] },
  freeDiskBytes: 10e9,
};
const needs = (...missing: string[]): PipelineNeeds => ({ kind: 'transcribe', missing: () => missing });

describe('PIPELINES', () => {
  it('serves transcribe assignments from transcribe wake-ups', () => {
    expect(pipelineFor(PIPELINES, 'transcribe')).toBe(transcribePipeline);
    expect(transcribePipeline.kind).toBe('transcribe');
    for (const p of Object.values(PIPELINES)) expect(WORK_KINDS).toContain(p.kind);
  });

  it('must cover every Assignment job type', () => {
    // @ts-expect-error an entry per proto Assignment variant is required (checked by tsc, not at run time)
    const incomplete: PipelineRegistry = {};
    expect(Object.keys(incomplete)).toEqual([]);
  });

  it('transcribe needs ffmpeg, faster-whisper and the model', () => {
    expect(transcribePipeline.missing(healthy, config)).toEqual([]);
    const bare: HostFacts = { ...healthy, ffmpeg: { version: null, encoders: [], error: 'ENOENT' }, whisperModels: { isRunnable: true, models: [] } };
    const missing = transcribePipeline.missing(bare, config);
    expect(missing).toHaveLength(2);
    expect(missing[0]).toMatch(/^ffmpeg at ffmpeg does not run/);
    expect(missing[1]).toMatch(/^Whisper model tiny\.en is not available offline/);
  });
});

describe('servableKinds', () => {
  it('announces a kind whose pipelines have everything', () => {
    expect(servableKinds(Object.values(PIPELINES), healthy, config)).toEqual({ kinds: ['transcribe', 'cut', 'understand'], missing: {} });
  });

  it('serves cuts without Whisper, and transcription without an H.264 encoder', () => {
    const noWhisper = { ...healthy, whisperModels: { isRunnable: false, models: [], error: 'no module' } };
    expect(servableKinds(Object.values(PIPELINES), noWhisper, config).kinds).toEqual(['cut']);
    const noEmbeddings = servableKinds(Object.values(PIPELINES), { ...healthy, embeddingModel: false }, config);
    expect(noEmbeddings.kinds).toEqual(['transcribe', 'cut']);
    expect(noEmbeddings.missing.understand).toEqual([expect.stringMatching(/sentence-embedding model is not installed .*ensure-models\.sh/)]);
    const noH264 = { ...healthy, ffmpeg: { version: '7.1.1', encoders: ['aac'] } };
    const { kinds, missing } = servableKinds(Object.values(PIPELINES), noH264, config);
    expect(kinds).toEqual(['transcribe', 'understand']);
    expect(missing.cut).toEqual([expect.stringMatching(/libx264/)]);
    // An agent whose NVENC session opened serves cuts on the GPU even without libx264.
    expect(servableKinds(Object.values(PIPELINES), { ...noH264, nvenc: true }, config).kinds).toEqual(['transcribe', 'cut', 'understand']);
  });

  it('withholds a kind and says what is missing for it', () => {
    const host = { ...healthy, whisperModels: { isRunnable: false, models: [], error: 'no module' } };
    const { kinds, missing } = servableKinds(Object.values(PIPELINES), host, config);
    expect(kinds).toEqual(['cut']);
    expect(missing.transcribe).toEqual([expect.stringMatching(/^faster-whisper does not run/)]);
  });

  it('withholds a kind when any one of its job types cannot run here, listing each gap once', () => {
    // A claim on the kind may hand over either job type, so both must be runnable.
    const { kinds, missing } = servableKinds([needs(), needs('no ffmpeg', 'no disk'), needs('no ffmpeg')], healthy, config);
    expect(kinds).toEqual([]);
    expect(missing).toEqual({ transcribe: ['no ffmpeg', 'no disk'] });
    expect(servableKinds([needs(), needs()], healthy, config)).toEqual({ kinds: ['transcribe'], missing: {} });
  });
});
