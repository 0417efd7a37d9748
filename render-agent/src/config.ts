import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** Repository root: render-agent/src/config.ts → ../.. (the default venv lives there). */
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The render-agent's environment, validated once at start-up. This module is the only reader
 * of process.env in the package; everything else receives an AgentConfig as an argument.
 */
const AgentEnv = z.object({
  /** Base URL of the coordinator's internal API. Required: there is no safe default. */
  COORDINATOR_URL: z.url(),
  /** Bearer token for /internal/v1 calls. Required. */
  AGENT_TOKEN: z.string().min(1),
  /** NATS server(s), comma-separated. Required. */
  NATS_URL: z.string().min(1),
  /** Stable id shown to the coordinator. @default `<hostname>-<pid>` */
  AGENT_ID: z.string().min(1).max(128).default(`${os.hostname()}-${process.pid}`),
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
  /** pino level. @default info */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export const AgentConfig = AgentEnv.transform((e) => ({
  coordinatorUrl: e.COORDINATOR_URL,
  agentToken: e.AGENT_TOKEN,
  natsUrl: e.NATS_URL,
  agentId: e.AGENT_ID,
  workDir: e.WORK_DIR,
  python: e.PYTHON,
  whisper: {
    model: e.WHISPER_MODEL,
    device: e.WHISPER_DEVICE,
    computeType: e.WHISPER_COMPUTE_TYPE,
    beamSize: e.WHISPER_BEAM_SIZE,
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
  logLevel: e.LOG_LEVEL,
}));
export type AgentConfig = z.output<typeof AgentConfig>;

/** Parses the environment; throws one error that names every bad or missing key. */
export function loadAgentConfig(env: Record<string, string | undefined> = process.env): AgentConfig {
  // Empty strings count as unset, so `FOO=` in a unit file does not defeat a default.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = AgentConfig.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((i) => {
        const key = i.path.join('.');
        return `  ${key || '(env)'}: ${key && present[key] === undefined ? 'required, not set' : i.message}`;
      })
      .join('\n');
    throw new Error(`render-agent configuration is invalid:\n${problems}`);
  }
  return parsed.data;
}
