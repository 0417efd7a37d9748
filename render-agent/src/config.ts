import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** Repository root: render-agent/src/config.ts → ../.. (the default venv lives there). */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where scripts/ensure-models.sh installs the local text model. */
export const DEFAULT_LLM_MODEL_PATH = path.join(REPO_ROOT, '.tools', 'models', 'llm', 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf');

/**
 * CTranslate2 threads for one CPU transcription when WHISPER_CPU_THREADS is unset: 1 on one or two
 * cores, where a second thread costs more than it gives (374 s of speech: 33 s with one thread, 52 s
 * with two); 0 (CTranslate2's default) on larger hosts, where no measurement says otherwise.
 */
export function defaultWhisperCpuThreads(cores = os.availableParallelism()): number {
  return cores <= 2 ? 1 : 0;
}

/**
 * Text generation (summaries, titles, hooks). An OpenAI-compatible endpoint when LLM_BASE_URL is
 * set; otherwise the local model at LLM_MODEL_PATH when it is installed; otherwise none, and the
 * extractive texts stand alone. Whatever generates is checked against the transcript.
 */
const LlmEnv = z.object({
  /**
   * Base URL of an OpenAI-compatible chat API up to its version segment (vLLM, llama.cpp server,
   * Ollama: `http://host:8000/v1`); requests go to `<LLM_BASE_URL>/chat/completions`. Needs
   * LLM_MODEL. @default unset (the local model)
   */
  LLM_BASE_URL: z.url().optional(),
  /** Model name sent to LLM_BASE_URL. Required when LLM_BASE_URL is set. @default unset */
  LLM_MODEL: z.string().min(1).optional(),
  /** Bearer key for LLM_BASE_URL; never logged nor put in an error. @default unset (no Authorization header) */
  LLM_API_KEY: z.string().min(1).optional(),
  /** How long one call to LLM_BASE_URL may take before it is abandoned. @default 120000 (2 min) */
  LLM_TIMEOUT_MS: z.coerce.number().int().min(1).default(120_000),
  /**
   * GGUF model run in-process by node-llama-cpp (CPU) when LLM_BASE_URL is unset; a missing file
   * means no generator. @default <repo>/.tools/models/llm/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
   */
  LLM_MODEL_PATH: z.string().min(1).default(DEFAULT_LLM_MODEL_PATH),
  /** CPU threads for the local model. @default every core (os.availableParallelism()) */
  LLM_THREADS: z.coerce.number().int().min(1).max(512).optional(),
  /**
   * find_clips: how many of the best-ranked candidates get a title, hook and summary from the text
   * model (one request each: 10-40 s on two CPU cores with the local model); the others keep
   * their extractive texts. 0: none. @default 3
   */
  LLM_CANDIDATES: z.coerce.number().int().min(0).max(10).default(3),
  /**
   * summarize: most text-model requests for one summary (one per chapter, then one for the
   * overview and key points); chapters past the cap keep their extractive texts. 0: extractive
   * only. @default 12
   */
  LLM_SUMMARY_CALLS: z.coerce.number().int().min(0).max(100).default(12),
});

/** LLM_BASE_URL without LLM_MODEL is a configuration error, not a silent fall-back to the local model. */
const modelNamedWithEndpoint = (e: { LLM_BASE_URL?: string | undefined; LLM_MODEL?: string | undefined }, ctx: z.RefinementCtx): void => {
  if (e.LLM_BASE_URL !== undefined && e.LLM_MODEL === undefined) {
    ctx.addIssue({ code: 'custom', path: ['LLM_MODEL'], message: 'required when LLM_BASE_URL is set' });
  }
};

const toLlmConfig = (e: z.output<typeof LlmEnv>) => ({
  /** Present exactly when LLM_BASE_URL is set. */
  endpoint:
    e.LLM_BASE_URL === undefined ? undefined : { baseUrl: e.LLM_BASE_URL, model: e.LLM_MODEL ?? '', apiKey: e.LLM_API_KEY, timeoutMs: e.LLM_TIMEOUT_MS },
  modelPath: e.LLM_MODEL_PATH,
  threads: e.LLM_THREADS,
  candidates: e.LLM_CANDIDATES,
  summaryCalls: e.LLM_SUMMARY_CALLS,
});

export const LlmConfig = LlmEnv.superRefine(modelNamedWithEndpoint).transform(toLlmConfig);
export type LlmConfig = z.output<typeof LlmConfig>;

/**
 * The render-agent's environment, validated once at start-up. This module is the only reader
 * of process.env in the package; everything else receives an AgentConfig as an argument.
 */
const AgentEnv = z.object({
  /** Base URL of the coordinator's internal API. Required: there is no safe default. */
  COORDINATOR_URL: z.url(),
  /**
   * Where this host keeps its own credential (written at enrollment, mode 0600, replaced on
   * rotation). @default ~/.cutroom/agent-credential.json
   */
  AGENT_CREDENTIAL_FILE: z
    .string()
    .min(1)
    .default(path.join(os.homedir(), '.cutroom', 'agent-credential.json')),
  /**
   * One-use token an operator minted (admin console → Add a host): traded for the credential when
   * AGENT_CREDENTIAL_FILE does not exist yet, ignored after that. @default unset
   */
  AGENT_ENROLLMENT_TOKEN: z.string().min(1).optional(),
  /** NATS server(s), comma-separated. Required. */
  NATS_URL: z.string().min(1),
  /** The name asked for at enrollment (an operator's token may fix another); the credential file's name wins after. @default the hostname */
  AGENT_ID: z
    .string()
    .min(1)
    .max(128)
    .default(os.hostname().replace(/[^A-Za-z0-9._-]/g, '-') || 'render-agent'),
  /** Scratch space; each attempt gets WORK_DIR/<attempt_id>, removed afterwards. @default <tmpdir>/cutroom-agent */
  WORK_DIR: z.string().min(1).default(path.join(os.tmpdir(), 'cutroom-agent')),
  /** Python with faster-whisper installed. @default <repo>/.venv/bin/python */
  PYTHON: z
    .string()
    .min(1)
    .default(path.join(REPO_ROOT, '.venv', 'bin', 'python')),
  /** Whisper model name or CTranslate2 folder; `tiny.en` ships offline. @default tiny.en */
  WHISPER_MODEL: z.string().min(1).default('tiny.en'),
  /** auto picks cuda when capability detection finds a CUDA device. @default auto */
  WHISPER_DEVICE: z.enum(['auto', 'cpu', 'cuda']).default('auto'),
  /** CTranslate2 compute type; auto = int8 on cpu, float16 on cuda. @default auto */
  WHISPER_COMPUTE_TYPE: z.string().min(1).default('auto'),
  /** Beam width; 5 is faster-whisper's default accuracy/speed trade. @default 5 */
  WHISPER_BEAM_SIZE: z.coerce.number().int().min(1).max(10).default(5),
  /**
   * CPU threads for a transcription on the CPU (CTranslate2's intra-op threads; no effect on CUDA).
   * @default 1 on a host of one or two cores (measured: two threads on two cores took 57 % longer
   * and 46 % more CPU time than one, docs/benchmarks.md "Whisper threads"), else CTranslate2's own
   * default (4)
   */
  WHISPER_CPU_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  /** Let the Whisper child download models by name; off so a missing model fails fast. @default false */
  WHISPER_ALLOW_DOWNLOAD: z.stringbool().default(false),
  /** @default ffmpeg (from PATH) */
  FFMPEG_PATH: z.string().min(1).default('ffmpeg'),
  /** @default ffprobe (from PATH) */
  FFPROBE_PATH: z.string().min(1).default('ffprobe'),
  /**
   * Stage wall-clock limits: a stage that runs longer is killed (its whole process group) and the
   * attempt fails as `stage_timeout` (ours, retried). limit(stage) = STAGE_TIMEOUT_FLOOR_MS +
   * factor(stage) × media seconds × 1000; the probe, before the duration is known, gets the floor.
   * The floor covers start-up (a Whisper model load; raise it when WHISPER_ALLOW_DOWNLOAD lets the
   * child download models). @default 300000 (5 min)
   */
  STAGE_TIMEOUT_FLOOR_MS: z.coerce.number().int().min(1).default(300_000),
  /**
   * Multiple of the media duration allowed for ffmpeg's audio extraction (it runs at tens to
   * hundreds of times real time, so this is generous). @default 0.5
   */
  STAGE_TIMEOUT_EXTRACT_FACTOR: z.coerce.number().min(0).max(1000).default(0.5),
  /**
   * Multiple of the media duration allowed for the Whisper child (tiny.en on 2 CPU cores runs at
   * about 0.1× real time; large models on a CPU near 1×). @default 3
   */
  STAGE_TIMEOUT_TRANSCRIBE_FACTOR: z.coerce.number().min(0).max(1000).default(3),
  /**
   * Multiple of the output duration allowed for one ffmpeg encode or loudness pass of a cut
   * (1080p x264 `slow` on 2 cores runs near 0.5-1× real time). @default 10
   */
  STAGE_TIMEOUT_ENCODE_FACTOR: z.coerce.number().min(0).max(1000).default(10),
  /**
   * Multiple of the clip duration allowed for subject detection (frame sampling + the face
   * detector, about 0.2-0.6 s per sampled frame on a CPU). @default 10
   */
  STAGE_TIMEOUT_DETECT_FACTOR: z.coerce.number().min(0).max(1000).default(10),
  /**
   * How long `complete`/`fail` are retried (network errors, 5xx, 429) before the agent gives up on
   * reporting; the lease then runs out and the sweeper requeues the job. @default 600000 (10 min)
   */
  RESULT_RETRY_MAX_MS: z.coerce.number().int().min(1).default(600_000),
  /**
   * Jobs run at once, by work kind (render-agent/src/slots.ts): `N` of each kind, or
   * `transcribe=1,understand=1,cut=2[,total=N]`. @default one of each kind at once on a host with
   * at least 2 cores and 4 GB (a short transcribe does not wait for a long summarize), else one job in all
   */
  AGENT_SLOTS: z.string().optional(),
  /**
   * A test setting, never for production: exact IP addresses a source_url may reach although they
   * are not public (the flows' local HTTP server on 127.0.0.1), comma-separated. @default none
   */
  SOURCE_URL_TEST_ALLOW_ADDRESSES: z.string().optional(),
  /** pino level. @default info */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ...LlmEnv.shape,
});

export const AgentConfig = AgentEnv.superRefine(modelNamedWithEndpoint).transform((e) => ({
  coordinatorUrl: e.COORDINATOR_URL,
  credentialFile: e.AGENT_CREDENTIAL_FILE,
  enrollmentToken: e.AGENT_ENROLLMENT_TOKEN,
  natsUrl: e.NATS_URL,
  agentId: e.AGENT_ID,
  workDir: e.WORK_DIR,
  python: e.PYTHON,
  whisper: {
    model: e.WHISPER_MODEL,
    device: e.WHISPER_DEVICE,
    computeType: e.WHISPER_COMPUTE_TYPE,
    beamSize: e.WHISPER_BEAM_SIZE,
    cpuThreads: e.WHISPER_CPU_THREADS ?? defaultWhisperCpuThreads(),
    allowDownload: e.WHISPER_ALLOW_DOWNLOAD,
  },
  ffmpegPath: e.FFMPEG_PATH,
  ffprobePath: e.FFPROBE_PATH,
  stageTimeouts: {
    floorMs: e.STAGE_TIMEOUT_FLOOR_MS,
    extractFactor: e.STAGE_TIMEOUT_EXTRACT_FACTOR,
    transcribeFactor: e.STAGE_TIMEOUT_TRANSCRIBE_FACTOR,
    encodeFactor: e.STAGE_TIMEOUT_ENCODE_FACTOR,
    detectFactor: e.STAGE_TIMEOUT_DETECT_FACTOR,
  },
  resultRetryMaxMs: e.RESULT_RETRY_MAX_MS,
  slots: e.AGENT_SLOTS,
  sourceFetch: {
    allowAddresses: (e.SOURCE_URL_TEST_ALLOW_ADDRESSES ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean),
  },
  llm: toLlmConfig(e),
  logLevel: e.LOG_LEVEL,
}));
export type AgentConfig = z.output<typeof AgentConfig>;

/** Parses the environment; throws one error that names every bad or missing key. */
export function loadAgentConfig(env: Record<string, string | undefined> = process.env): AgentConfig {
  return parseEnv(AgentConfig, env, 'render-agent configuration');
}

/**
 * Only the text-generation keys (LLM_*), for tools and tests that generate text without running an
 * agent (no coordinator keys needed). Same rules and errors as loadAgentConfig.
 */
export function loadLlmConfig(env: Record<string, string | undefined> = process.env): LlmConfig {
  return parseEnv(LlmConfig, env, 'text generation configuration');
}

function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>, what: string): z.output<S> {
  // Empty strings count as unset, so `FOO=` in a unit file does not defeat a default.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((i) => {
        const key = i.path.join('.');
        return `  ${key || '(env)'}: ${key && present[key] === undefined && i.code !== 'custom' ? 'required, not set' : i.message}`;
      })
      .join('\n');
    throw new Error(`${what} is invalid:\n${problems}`);
  }
  return parsed.data;
}
