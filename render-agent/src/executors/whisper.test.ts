import { describe, expect, it } from 'vitest';
import { buildWhisperArgs } from './whisper.ts';

const base = { audioPath: '/w/a.wav', model: 'tiny.en', device: 'cpu', computeType: 'int8', beamSize: 5, language: null } as const;

describe('buildWhisperArgs', () => {
  it('passes the CPU threads only when set, and the language only when forced', () => {
    const plain = buildWhisperArgs(base);
    expect(plain.slice(1)).toEqual(['--audio', '/w/a.wav', '--model', 'tiny.en', '--device', 'cpu', '--compute-type', 'int8', '--beam-size', '5']);
    expect(buildWhisperArgs({ ...base, cpuThreads: 0 })).toEqual(plain);
    expect(buildWhisperArgs({ ...base, cpuThreads: 1, language: 'de' }).slice(-4)).toEqual(['--cpu-threads', '1', '--language', 'de']);
  });
});
