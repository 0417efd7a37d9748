import type { AgentConfig } from '../config.ts';
import type { CudaInfo, FfmpegInfo, WhisperModelsInfo } from './detect-tools.ts';

/** What the start-up probes found on this host: the input every pipeline's requirements read. */
export interface HostFacts {
  ffmpeg: FfmpegInfo;
  /** A one-frame h264_nvenc encode succeeded. */
  nvenc: boolean;
  cuda: CudaInfo;
  whisperModels: WhisperModelsInfo;
  freeDiskBytes: number;
  /** The sentence-embedding model's files are installed (understanding/shared-embedder.ts); absent = no. */
  embeddingModel?: boolean;
}

/**
 * One thing a pipeline needs from the host: null when the host has it, otherwise a line for the
 * start-up log that says what is missing and, where it can, how to fix it.
 */
export type Requirement = (host: HostFacts, config: AgentConfig) => string | null;

export const ffmpegRuns: Requirement = (host, config) =>
  host.ffmpeg.version === null ? `ffmpeg at ${config.ffmpegPath} does not run: ${host.ffmpeg.error ?? 'no version line'}` : null;

export const fasterWhisperRuns: Requirement = (host, config) =>
  host.whisperModels.isRunnable ? null : `faster-whisper does not run with ${config.python}: ${host.whisperModels.error ?? ''}`;

/**
 * The configured model loads without the network, or the child may download it. Checked only
 * when faster-whisper runs: without it there is no model list, and fasterWhisperRuns already says why.
 */
export const whisperModelAvailable: Requirement = (host, config) => {
  const { whisperModels } = host;
  if (!whisperModels.isRunnable || config.whisper.allowDownload || whisperModels.models.includes(config.whisper.model)) return null;
  return `Whisper model ${config.whisper.model} is not available offline (set WHISPER_ALLOW_DOWNLOAD=true to fetch it)`;
};

/** Combines requirements into a pipeline's `missing`: every unmet one, in the order given. */
export function unmet(...requirements: Requirement[]): (host: HostFacts, config: AgentConfig) => string[] {
  return (host, config) => requirements.map((r) => r(host, config)).filter((line) => line !== null);
}

/**
 * What a cut encodes with: H.264 (h264_nvenc when a session opened at start-up, else libx264) and
 * AAC. Debian's ffmpeg has both; a minimal build may lack libx264 (it is GPL) or be built without
 * encoders at all.
 */
export const h264EncoderAvailable: Requirement = (host, config) => {
  const { encoders, version } = host.ffmpeg;
  // ffmpegRuns already says why an ffmpeg that does not run lists no encoders.
  if (version === null) return null;
  const missing = [
    ...(host.nvenc || encoders.includes('libx264') ? [] : ['an H.264 encoder (libx264, or h264_nvenc with a working NVIDIA driver)']),
    ...(encoders.includes('aac') ? [] : ['the aac encoder']),
  ];
  return missing.length === 0
    ? null
    : `ffmpeg at ${config.ffmpegPath} lacks ${missing.join(' and ')}, which cuts encode with: install an ffmpeg built with them`;
};
