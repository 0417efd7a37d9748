import { describe, expect, it } from 'vitest';
import { resolveWhisperRuntime } from './whisper-runtime.ts';

const base = { model: 'tiny.en', device: 'auto' as const, computeType: 'auto', beamSize: 5, cpuThreads: 1, allowDownload: false };

describe('resolveWhisperRuntime', () => {
  it('auto follows CUDA detection', () => {
    expect(resolveWhisperRuntime(base, true)).toEqual({ device: 'cuda', computeType: 'float16' });
    expect(resolveWhisperRuntime(base, false)).toEqual({ device: 'cpu', computeType: 'int8' });
  });
  it('keeps explicit choices', () => {
    expect(resolveWhisperRuntime({ ...base, device: 'cpu', computeType: 'float32' }, true)).toEqual({ device: 'cpu', computeType: 'float32' });
  });
});
