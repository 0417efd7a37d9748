import fs from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LLM_MODEL_PATH } from '@cutroom/render-agent/config';
import { summaryLineEnd } from '@cutroom/render-agent/understanding/answer-stop';
import { generatorFromEnv, loadLocalGenerator, openAiCompatibleGenerator, type TextGenerator } from '@cutroom/render-agent/understanding/text-generator';
import { BAKERY_TALK } from './harness/bakery-talk.ts';

const SYSTEM = 'You write short, accurate text about transcripts. Use only facts stated in the transcript.';

/**
 * The embedded default: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, installed by
 * scripts/ensure-models.sh) on llama.cpp's prebuilt CPU binary. On 2 cores it loads in 3-5 s and
 * the request below (a ~200-token prompt, ~40 tokens written) takes ~10 s on one thread; one
 * thread, as the other integration files that load the model, because another file shares the two
 * cores (llama.cpp's threads spin-wait on each other when the cores are shared).
 */
describe('local text model (node-llama-cpp, CPU)', () => {
  let generator: TextGenerator;
  afterAll(() => generator?.close());

  it('loads the installed GGUF, answers labelled lines, and stops once the answer matches stopAfter: one summary sentence, not the token cap', async () => {
    const t0 = performance.now();
    generator = await loadLocalGenerator({ modelPath: DEFAULT_LLM_MODEL_PATH, threads: 1 });
    const loadSeconds = (performance.now() - t0) / 1000;
    expect(generator.id).toMatch(/^local:qwen2\.5-coder-1\.5b-instruct-q4_k_m/);
    // Loaded once per process: asking again hands back the same instance.
    expect(await loadLocalGenerator({ modelPath: DEFAULT_LLM_MODEL_PATH, threads: 1 })).toBe(generator);
    expect(loadSeconds).toBeLessThan(60);

    let tokens = 0;
    const t1 = performance.now();
    const answer = await generator.complete({
      system: SYSTEM,
      prompt: `Fill in these lines about the transcript: a title, then a summary of three sentences.\nTitle 1:\nSummary 1:\n\nTranscript:\n${BAKERY_TALK.slice(0, 500)}`,
      maxTokens: 150,
      responsePrefix: 'Title 1:',
      stopAfter: summaryLineEnd('Summary 1'),
      onTokens: (n) => {
        tokens = n;
      },
    });
    console.info(
      `local model: loaded in ${loadSeconds.toFixed(1)} s, ${tokens} tokens in ${((performance.now() - t1) / 1000).toFixed(1)} s: ${answer.replace(/\s+/g, ' ')}`,
    );
    expect(answer).toMatch(/^Title 1:[^\n]+\n+\**Summary 1:\**[ \t]*[^\n]+[.!?]["”’)]?$/);
    // One sentence on the summary line, and generation stopped there (a token or two past its end).
    expect(
      answer
        .split('\n')
        .at(-1)!
        .match(/[.!?](\s|$)/g),
    ).toHaveLength(1);
    expect(tokens).toBeLessThan(100);
  });

  it('refuses a prompt that cannot fit its context instead of truncating it', async () => {
    const long = Array.from({ length: 12 }, () => BAKERY_TALK).join(' ');
    await expect(generator.complete({ system: SYSTEM, prompt: long, maxTokens: 20 })).rejects.toThrow(/tokens.*more than the local model's context of 4096/);
  });
});

/** The production edge: an OpenAI-compatible server we cannot reach from here, faked in a few lines. */
describe('OpenAI-compatible endpoint', () => {
  const KEY = 'sk-test-0123456789abcdef';
  let server: Server;
  let baseUrl: string;
  const seen: { method?: string; url?: string; headers: IncomingMessage['headers']; body: unknown }[] = [];
  let reply: { status: number; body: string; delayMs?: number } = { status: 200, body: '{}' };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => {
        raw += c.toString();
      });
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body: JSON.parse(raw) });
        setTimeout(() => {
          res.writeHead(reply.status, { 'content-type': 'application/json' });
          res.end(reply.body);
        }, reply.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('posts model, messages, max_tokens and temperature to /chat/completions and returns the answer', async () => {
    seen.length = 0;
    reply = {
      status: 200,
      body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: ' Title: A\nHook: B\n' }, finish_reason: 'stop' }] }),
    };
    const g = openAiCompatibleGenerator({ baseUrl, model: 'qwen2.5-7b-instruct', apiKey: KEY, timeoutMs: 5000 });
    expect(g.id).toBe(`openai-compatible:qwen2.5-7b-instruct@${new URL(baseUrl).origin}`);
    const answer = await g.complete({ system: SYSTEM, prompt: 'Title this.', maxTokens: 60 });
    expect(answer).toBe('Title: A\nHook: B');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.url).toBe('/v1/chat/completions');
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(seen[0]!.body).toEqual({
      model: 'qwen2.5-7b-instruct',
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'Title this.' },
      ],
      max_tokens: 60,
      temperature: 0,
    });

    // No key: no Authorization header.
    const open = openAiCompatibleGenerator({ baseUrl, model: 'm', timeoutMs: 5000 });
    reply = { status: 200, body: JSON.stringify({ choices: [{ message: { content: 'Hello.' } }] }) };
    expect(await open.complete({ system: 's', prompt: 'p', maxTokens: 5, temperature: 0.7 })).toBe('Hello.');
    expect(seen[1]!.headers.authorization).toBeUndefined();
    expect(seen[1]!.body).toMatchObject({ temperature: 0.7 });

    // stopAfter: the endpoint's answer is cut where the local model would have stopped.
    reply = { status: 200, body: JSON.stringify({ choices: [{ message: { content: 'Title 1: Bread\nSummary 1: Dough rests. Then it bakes.' } }] }) };
    expect(await open.complete({ system: 's', prompt: 'p', maxTokens: 50, stopAfter: summaryLineEnd('Summary 1') })).toBe(
      'Title 1: Bread\nSummary 1: Dough rests.',
    );
  });

  it('turns a non-2xx answer into a clear error that never contains the key', async () => {
    reply = { status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }) };
    const g = openAiCompatibleGenerator({ baseUrl, model: 'm', apiKey: KEY, timeoutMs: 5000 });
    const err = await g.complete({ system: 's', prompt: 'p', maxTokens: 5 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/text generation endpoint http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions answered 401 Unauthorized/);
    expect((err as Error).message).toContain('[redacted]');
    expect((err as Error).message).not.toContain(KEY);
    expect(JSON.stringify(err, Object.getOwnPropertyNames(err))).not.toContain(KEY);

    reply = { status: 200, body: JSON.stringify({ choices: [] }) };
    await expect(g.complete({ system: 's', prompt: 'p', maxTokens: 5 })).rejects.toThrow(/without choices\[0\]\.message\.content/);
  });

  it('names an endpoint it cannot reach, and gives up after timeoutMs', async () => {
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const port = (gone.address() as AddressInfo).port;
    await new Promise((resolve) => gone.close(resolve));
    const closed = openAiCompatibleGenerator({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', apiKey: KEY, timeoutMs: 5000 });
    await expect(closed.complete({ system: 's', prompt: 'p', maxTokens: 5 })).rejects.toThrow(
      new RegExp(`endpoint http://127\\.0\\.0\\.1:${port}/v1/chat/completions could not be reached: .*ECONNREFUSED`),
    );

    reply = { status: 200, body: '{}', delayMs: 2000 };
    const g = openAiCompatibleGenerator({ baseUrl, model: 'm', apiKey: KEY, timeoutMs: 200 });
    await expect(g.complete({ system: 's', prompt: 'p', maxTokens: 5 })).rejects.toThrow(/did not answer within 200 ms/);
  });

  it('is chosen by LLM_BASE_URL; without it the local model when installed, else none', async () => {
    const remote = await generatorFromEnv({ LLM_BASE_URL: baseUrl, LLM_MODEL: 'm', LLM_API_KEY: KEY });
    expect(remote?.id).toMatch(/^openai-compatible:m@/);
    expect(await generatorFromEnv({ LLM_MODEL_PATH: '/nonexistent/model.gguf' })).toBeNull();
    await expect(generatorFromEnv({ LLM_BASE_URL: baseUrl })).rejects.toThrow(/LLM_MODEL: required when LLM_BASE_URL is set/);
  });
});

describe('npm lock', () => {
  it('installs only the CPU build of node-llama-cpp (the GPU builds are ~620 MB; GPU hosts use an endpoint)', () => {
    const lock = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '..', 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
    const platformBuilds = Object.keys(lock.packages).filter((k) => k.includes('@node-llama-cpp/'));
    expect(platformBuilds).toContain('node_modules/@node-llama-cpp/linux-x64');
    expect(platformBuilds.filter((k) => /cuda|vulkan|armv7l/.test(k))).toEqual([]);
  });
});
