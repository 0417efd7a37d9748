import os from 'node:os';
import { PROTOCOL_VERSION, type AgentCapabilities, type WorkKind } from '@cutroom/proto';
import type { AgentConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { AGENT_VERSION } from '../version.ts';
import { detectCuda, detectFfmpeg, detectFreeDisk, detectNvenc, detectWhisperModels } from './detect-tools.ts';
import { resolveWhisperRuntime, type WhisperRuntime } from './whisper-runtime.ts';

export interface DetectedCapabilities {
  capabilities: AgentCapabilities;
  /** What the Whisper child is told to use, after resolving `auto`. */
  whisper: WhisperRuntime;
  /** Why a work kind is not served, for the start-up log. */
  missing: string[];
}

/** Runs every probe (concurrently: each spawns a process) and builds the announcement. */
export async function detectCapabilities(config: AgentConfig, logger: Logger): Promise<DetectedCapabilities> {
  const [ffmpeg, cuda, whisperModels, freeDisk] = await Promise.all([
    detectFfmpeg(config.ffmpegPath),
    detectCuda(config.python),
    detectWhisperModels(config.python, config.whisper.model, config.whisper.allowDownload),
    detectFreeDisk(config.workDir),
  ]);
  const nvenc = ffmpeg.encoders.includes('h264_nvenc') ? await detectNvenc(config.ffmpegPath) : false;
  const whisper = resolveWhisperRuntime(config.whisper, cuda.available);

  const missing: string[] = [];
  if (ffmpeg.version === null) missing.push(`ffmpeg at ${config.ffmpegPath} does not run: ${ffmpeg.error ?? 'no version line'}`);
  if (!whisperModels.isRunnable) missing.push(`faster-whisper does not run with ${config.python}: ${whisperModels.error ?? ''}`);
  // A model that is not local can still be served when the child may download it.
  const hasModel = whisperModels.models.includes(config.whisper.model) || config.whisper.allowDownload;
  if (whisperModels.isRunnable && !hasModel) missing.push(`Whisper model ${config.whisper.model} is not available offline (set WHISPER_ALLOW_DOWNLOAD=true to fetch it)`);

  const workKinds: WorkKind[] = missing.length === 0 ? ['transcribe'] : [];
  const capabilities: AgentCapabilities = {
    v: PROTOCOL_VERSION,
    agent_id: config.agentId,
    version: AGENT_VERSION,
    hostname: os.hostname(),
    ffmpeg: { version: ffmpeg.version ?? 'unavailable', encoders: ffmpeg.encoders, nvenc },
    cuda,
    whisper: { models: whisperModels.models, device: whisper.device, compute_type: whisper.computeType },
    free_disk_bytes: freeDisk,
    work_kinds: workKinds,
  };
  logger.info({ nvenc, cuda: cuda.devices, models: whisperModels.models, whisper, free_disk_bytes: freeDisk, work_kinds: workKinds, missing }, 'capabilities detected');
  return { capabilities, whisper, missing };
}
