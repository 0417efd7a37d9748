import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Llama, LlamaContextSequence, LlamaModel } from 'node-llama-cpp';
import { type LlmConfig, loadLlmConfig } from '../config.ts';
import { upTo } from './answer-stop.ts';

/**
 * Text generation (summaries, titles, hooks) behind one small interface: an OpenAI-compatible
 * endpoint on GPU hosts, a local GGUF model on the embedded default. Whatever it writes is only a
 * draft: the caller checks it against the transcript (grounding.ts) and keeps an extractive text
 * as the floor, so a weak or absent generator lowers quality, never correctness.
 */
export interface TextGenerator {
  /** What generated the text (recorded with results). */
  readonly id: string;
  /** One answer to one prompt, as text. */
  complete(req: TextRequest): Promise<string>;
  /** Releases what it holds (the local model's memory); later calls fail. */
  close(): Promise<void>;
}

export interface TextRequest {
  /** Instructions: the system message. */
  system: string;
  /** The user message (the task and the transcript text). */
  prompt: string;
  /** Most tokens the answer may take. */
  maxTokens: number;
  /** Sampling temperature. @default 0 (the same input gives the same text) */
  temperature?: number;
  signal?: AbortSignal;
  /**
   * Text the answer starts with (the local model continues it, and it is part of the answer
   * returned; an endpoint is not given it, so the prompt must ask for the same shape).
   */
  responsePrefix?: string;
  /** Told how many answer tokens exist so far, as they are generated (progress; the endpoint answers at once, so it is told nothing). */
  onTokens?: (generated: number) => void;
  /**
   * The answer ends where this first matches (see `upTo`): the local model stops generating there,
   * an endpoint's answer is cut there. For answers whose last field is asked to be one sentence,
   * so the time of the sentences a small model writes past it is not spent (summaryLineEnd).
   */
  stopAfter?: RegExp;
}

// --- OpenAI-compatible endpoint ---------------------------------------------------------------

export interface OpenAiCompatibleOptions {
  /** Up to the version segment, e.g. `http://vllm.internal:8000/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  /** Sent as a bearer token; never appears in an error or a log. @default none */
  apiKey?: string | undefined;
  /** One call's wall-clock limit (headers and body). */
  timeoutMs: number;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** The part of a chat completion answer that is read. */
interface ChatCompletion {
  choices?: { message?: { content?: unknown }; finish_reason?: unknown }[];
}

/**
 * Any OpenAI-compatible chat API (vLLM, llama.cpp server, Ollama, hosted). Answers are plain text
 * (labelled lines); errors name the endpoint by origin and path only (no query, no credentials, no
 * key).
 */
export function openAiCompatibleGenerator(o: OpenAiCompatibleOptions): TextGenerator {
  const base = new URL(o.baseUrl);
  const url = new URL(`${base.pathname.replace(/\/+$/, '')}/chat/completions`, base);
  const where = `${url.origin}${url.pathname}`;
  const doFetch = o.fetch ?? globalThis.fetch;
  const redact = (text: string): string => (o.apiKey ? text.split(o.apiKey).join('[redacted]') : text);
  let isClosed = false;
  return {
    id: `openai-compatible:${o.model}@${url.origin}`,
    async complete(req) {
      if (isClosed) throw new Error('the text generator is closed');
      const body = {
        model: o.model,
        messages: [
          { role: 'system', content: req.system },
          { role: 'user', content: req.prompt },
        ],
        max_tokens: req.maxTokens,
        temperature: req.temperature ?? 0,
      };
      const timeout = AbortSignal.timeout(o.timeoutMs);
      const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
      let res: Response;
      let text: string;
      try {
        res = await doFetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) },
          body: JSON.stringify(body),
          signal,
        });
        text = await res.text();
      } catch (err) {
        if (req.signal?.aborted) throw req.signal.reason;
        if (timeout.aborted) throw new Error(`text generation endpoint ${where} did not answer within ${o.timeoutMs} ms`);
        const cause = (err as Error).cause instanceof Error ? ` (${((err as Error).cause as Error).message})` : '';
        throw new Error(`text generation endpoint ${where} could not be reached: ${redact(`${(err as Error).message}${cause}`)}`);
      }
      if (!res.ok) {
        const excerpt = redact(text.replace(/\s+/g, ' ').trim()).slice(0, 300);
        throw new Error(`text generation endpoint ${where} answered ${res.status} ${res.statusText}${excerpt ? `: ${excerpt}` : ''}`);
      }
      let answer: ChatCompletion;
      try {
        answer = JSON.parse(text) as ChatCompletion;
      } catch {
        throw new Error(`text generation endpoint ${where} answered ${res.status} with a body that is not JSON`);
      }
      const content = answer.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw new Error(`text generation endpoint ${where} answered without choices[0].message.content`);
      return upTo(content, req.stopAfter);
    },
    async close() {
      isClosed = true;
    },
  };
}

// --- local GGUF model (node-llama-cpp, CPU) ---------------------------------------------------

export interface LocalGeneratorOptions {
  /** A GGUF file (scripts/ensure-models.sh installs the default). */
  modelPath: string;
  /** CPU threads. @default every core (os.availableParallelism()) */
  threads?: number | undefined;
  /** Tokens of prompt + answer one request may hold. @default 4096 */
  contextSize?: number | undefined;
}

/** One loaded model per (file, threads, context size) per process: loading takes seconds and ~1.3 GB. */
const loaded = new Map<string, Promise<TextGenerator>>();
let llamaPromise: Promise<Llama> | undefined;

/**
 * A GGUF model run in this process by llama.cpp's prebuilt CPU binary (no build, no download: a
 * missing binary fails at once). Loaded once per process and shared; requests run one at a time
 * on a single context sequence (llama.cpp on a CPU gains nothing from interleaving them, and one
 * sequence bounds memory). Answers are free text: a JSON grammar made the 1.5B model 2.5 times
 * slower a token on 2 cores (docs/benchmarks.md), so callers ask for labelled lines instead.
 */
export function loadLocalGenerator(o: LocalGeneratorOptions): Promise<TextGenerator> {
  const threads = o.threads ?? os.availableParallelism();
  const contextSize = o.contextSize ?? 4096;
  const key = `${path.resolve(o.modelPath)}|${threads}|${contextSize}`;
  let generator = loaded.get(key);
  if (!generator) {
    generator = openLocalGenerator(o.modelPath, threads, contextSize, () => loaded.delete(key));
    loaded.set(key, generator);
    generator.catch(() => loaded.delete(key));
  }
  return generator;
}

async function openLocalGenerator(modelPath: string, threads: number, contextSize: number, forget: () => void): Promise<TextGenerator> {
  const { getLlama, LlamaChatSession, LlamaLogLevel } = await import('node-llama-cpp');
  let llama: Llama;
  let model: LlamaModel;
  let sequence: LlamaContextSequence;
  try {
    if (!llamaPromise) {
      llamaPromise = getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, progressLogs: false, logLevel: LlamaLogLevel.error });
      // A platform without a prebuilt binary fails here; do not keep the failure for later callers.
      llamaPromise.catch(() => {
        llamaPromise = undefined;
      });
    }
    llama = await llamaPromise;
    model = await llama.loadModel({ modelPath });
    const context = await model.createContext({ contextSize, threads, sequences: 1 });
    sequence = context.getSequence();
  } catch (err) {
    throw new Error(
      `the local text model could not be loaded from ${modelPath}: ${(err as Error).message} (scripts/ensure-models.sh installs the model; node-llama-cpp's prebuilt CPU binary comes with npm ci)`,
      { cause: err },
    );
  }
  // Requests queue here: one runs on the sequence at a time, whatever the callers do.
  let tail: Promise<unknown> = Promise.resolve();
  let isClosed = false;
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(work);
    tail = run.catch(() => undefined);
    return run;
  };
  const complete = async (req: TextRequest): Promise<string> => {
    if (isClosed) throw new Error('the text generator is closed');
    req.signal?.throwIfAborted();
    const promptTokens = model.tokenize(`${req.system}\n${req.prompt}`).length;
    // The chat template adds a few dozen tokens around the two messages.
    if (promptTokens + req.maxTokens + 64 > contextSize) {
      throw new Error(`the prompt is ${promptTokens} tokens and the answer may take ${req.maxTokens}: more than the local model's context of ${contextSize}`);
    }
    const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: req.system });
    let generated = 0;
    const onTokens = req.onTokens;
    // stopAfter: the answer so far is watched, and generation is stopped (not failed) once it matches.
    const stop = req.stopAfter ? new AbortController() : null;
    let sofar = req.responsePrefix ?? '';
    const signals = [req.signal, stop?.signal].filter((x): x is AbortSignal => x !== undefined);
    try {
      const answer = await session.prompt(req.prompt, {
        ...(onTokens
          ? {
              onToken: (tokens: readonly unknown[]) => {
                generated += tokens.length;
                onTokens(generated);
              },
            }
          : {}),
        ...(stop
          ? {
              onTextChunk: (chunk: string) => {
                sofar += chunk;
                if (!stop.signal.aborted && req.stopAfter!.test(sofar)) stop.abort();
              },
              stopOnAbortSignal: true,
            }
          : {}),
        maxTokens: req.maxTokens,
        temperature: req.temperature ?? 0,
        ...(req.responsePrefix ? { responsePrefix: req.responsePrefix } : {}),
        ...(signals.length > 0 ? { signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) } : {}),
      });
      // With stopOnAbortSignal the caller's abort returns the partial answer too: it is still an abort.
      req.signal?.throwIfAborted();
      return upTo(answer, req.stopAfter);
    } catch (err) {
      // A failed or aborted request may leave a half-read prompt: the next one starts clean.
      await sequence.clearHistory();
      throw err;
    } finally {
      // The sequence keeps what it read: the next request's session re-reads only what differs from
      // it (node-llama-cpp keeps the common prefix: the chat template, the system prompt and the
      // instructions' first words). A chapter request took 12.1-14.3 s with the history cleared and
      // 10.5-11.6 s with it kept (one thread, 2 cores; docs/benchmarks.md).
      session.dispose({ disposeSequence: false });
    }
  };
  return {
    id: `local:${path.basename(modelPath, '.gguf')} (node-llama-cpp, cpu, ${threads} threads)`,
    complete: (req) => serialized(() => complete(req)),
    close: () =>
      serialized(async () => {
        if (isClosed) return;
        isClosed = true;
        forget();
        await model.dispose();
      }),
  };
}

// --- choosing one -----------------------------------------------------------------------------

/**
 * The configured generator: the endpoint when LLM_BASE_URL is set, else the local model when its
 * file exists, else null (the caller keeps its extractive texts). A local model that is present but
 * cannot load is an error, not a silent fall-back: a broken install should be seen.
 */
export async function generatorFromConfig(llm: LlmConfig): Promise<TextGenerator | null> {
  if (llm.endpoint) return openAiCompatibleGenerator(llm.endpoint);
  if (!fs.existsSync(llm.modelPath)) return null;
  return loadLocalGenerator({ modelPath: llm.modelPath, threads: llm.threads });
}

/** generatorFromConfig over the LLM_* keys of an environment (validated as the agent's config is). */
export async function generatorFromEnv(env: Record<string, string | undefined>): Promise<TextGenerator | null> {
  return generatorFromConfig(loadLlmConfig(env));
}
