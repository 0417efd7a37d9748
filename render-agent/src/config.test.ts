import { describe, expect, it } from 'vitest';
import { defaultWhisperCpuThreads, loadAgentConfig, loadLlmConfig } from './config.ts';

const required = { COORDINATOR_URL: 'http://127.0.0.1:8080', AGENT_TOKEN: 't0ken', NATS_URL: 'nats://127.0.0.1:4222' };

describe('loadAgentConfig', () => {
  it('applies defaults for everything optional', () => {
    const c = loadAgentConfig(required);
    expect(c.whisper).toEqual({
      model: 'tiny.en',
      device: 'auto',
      computeType: 'auto',
      beamSize: 5,
      cpuThreads: defaultWhisperCpuThreads(),
      allowDownload: false,
    });
    expect(c.ffmpegPath).toBe('ffmpeg');
    expect(c.python).toMatch(/\.venv\/bin\/python$/);
    expect(c.agentId).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(c.credentialFile).toMatch(/\.cutroom\/agent-credential\.json$/);
    expect(c.enrollmentToken).toBeUndefined();
    expect(c.logLevel).toBe('info');
    expect(c.stageTimeouts).toEqual({ floorMs: 300_000, extractFactor: 0.5, transcribeFactor: 3, encodeFactor: 10, detectFactor: 10 });
    expect(c.resultRetryMaxMs).toBe(600_000);
  });

  it('reads the stage limits and the result retry cap', () => {
    const c = loadAgentConfig({
      ...required,
      STAGE_TIMEOUT_FLOOR_MS: '2000',
      STAGE_TIMEOUT_EXTRACT_FACTOR: '0.1',
      STAGE_TIMEOUT_TRANSCRIBE_FACTOR: '1.5',
      RESULT_RETRY_MAX_MS: '30000',
    });
    expect(c.stageTimeouts).toEqual({ floorMs: 2000, extractFactor: 0.1, transcribeFactor: 1.5, encodeFactor: 10, detectFactor: 10 });
    expect(c.resultRetryMaxMs).toBe(30_000);
    expect(() => loadAgentConfig({ ...required, STAGE_TIMEOUT_FLOOR_MS: '0' })).toThrow(/STAGE_TIMEOUT_FLOOR_MS/);
    expect(() => loadAgentConfig({ ...required, RESULT_RETRY_MAX_MS: 'soon' })).toThrow(/RESULT_RETRY_MAX_MS/);
  });

  it('names every missing required key', () => {
    expect(() => loadAgentConfig({})).toThrow(/COORDINATOR_URL[\s\S]*NATS_URL/);
  });

  it('treats empty strings as unset and parses typed values', () => {
    const c = loadAgentConfig({ ...required, WHISPER_MODEL: '', WHISPER_BEAM_SIZE: '2', WHISPER_ALLOW_DOWNLOAD: 'true', WHISPER_DEVICE: 'cpu' });
    expect(c.whisper).toMatchObject({ model: 'tiny.en', beamSize: 2, allowDownload: true, device: 'cpu' });
    expect(loadAgentConfig({ ...required, WHISPER_CPU_THREADS: '3' }).whisper.cpuThreads).toBe(3);
    expect(() => loadAgentConfig({ ...required, WHISPER_CPU_THREADS: '0' })).toThrow(/WHISPER_CPU_THREADS/);
  });

  it("transcribes on one CPU thread on one or two cores, at CTranslate2's default on larger hosts", () => {
    expect([1, 2, 3, 16].map((n) => defaultWhisperCpuThreads(n))).toEqual([1, 1, 0, 0]);
  });

  it('reads the text-generation keys: an endpoint only with a model, the local model by default', () => {
    const local = loadAgentConfig(required).llm;
    expect(local.endpoint).toBeUndefined();
    expect(local.modelPath).toMatch(/\.tools\/models\/llm\/qwen2\.5-coder-1\.5b-instruct-q4_k_m\.gguf$/);
    expect(local.threads).toBeUndefined();
    const remote = loadAgentConfig({ ...required, LLM_BASE_URL: 'http://vllm.internal:8000/v1', LLM_MODEL: 'qwen', LLM_API_KEY: 'k', LLM_THREADS: '4' }).llm;
    expect(remote).toMatchObject({ endpoint: { baseUrl: 'http://vllm.internal:8000/v1', model: 'qwen', apiKey: 'k', timeoutMs: 120_000 }, threads: 4 });
    expect(() => loadAgentConfig({ ...required, LLM_BASE_URL: 'http://vllm.internal:8000/v1' })).toThrow(/LLM_MODEL: required when LLM_BASE_URL is set/);
    expect(() => loadAgentConfig({ ...required, LLM_BASE_URL: 'not a url', LLM_MODEL: 'm' })).toThrow(/LLM_BASE_URL/);
    expect(loadLlmConfig({ LLM_MODEL_PATH: '/models/x.gguf' })).toEqual({
      endpoint: undefined,
      modelPath: '/models/x.gguf',
      threads: undefined,
      candidates: 3,
      summaryCalls: 12,
    });
    expect(loadLlmConfig({ LLM_CANDIDATES: '0', LLM_SUMMARY_CALLS: '4' })).toMatchObject({ candidates: 0, summaryCalls: 4 });
    expect(() => loadLlmConfig({ LLM_CANDIDATES: '11' })).toThrow(/LLM_CANDIDATES/);
  });

  it('rejects a bad enum value', () => {
    expect(() => loadAgentConfig({ ...required, WHISPER_DEVICE: 'tpu' })).toThrow(/WHISPER_DEVICE/);
  });
});
