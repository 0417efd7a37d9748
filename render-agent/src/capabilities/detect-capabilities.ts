import os from 'node:os';
import { PROTOCOL_VERSION, type AgentCapabilities, type WorkKind } from '@cutroom/proto';
import type { AgentConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { PipelineRegistry } from '../pipelines/pipeline.ts';
import { PIPELINES, servableKinds } from '../pipelines/registry.ts';
import { AGENT_VERSION } from '../version.ts';
import { detectCuda, detectFfmpeg, detectFreeDisk, detectGpus, detectNvenc, detectWhisperModels } from './detect-tools.ts';
import type { HostFacts } from './requirements.ts';
import { detectEmbeddingModel } from '../understanding/shared-embedder.ts';
import { resolveWhisperRuntime, type WhisperRuntime } from './whisper-runtime.ts';

export interface DetectedCapabilities {
  capabilities: AgentCapabilities;
  /** What the Whisper child is told to use, after resolving `auto`. */
  whisper: WhisperRuntime;
  /** What the probes found (encoders, NVENC, CUDA, models, disk): pipelines choose their encoder from it. */
  host: HostFacts;
  /** For each work kind not served, what this host lacks (for the start-up log and the refusal to start). */
  missing: Partial<Record<WorkKind, string[]>>;
}

/**
 * Runs every probe (concurrently: each spawns a process) and builds the announcement. The work
 * kinds come from the pipeline registry: a kind is announced when its pipelines' needs are met.
 */
export async function detectCapabilities(config: AgentConfig, logger: Logger, pipelines: PipelineRegistry = PIPELINES): Promise<DetectedCapabilities> {
  const [ffmpeg, cuda, whisperModels, freeDisk, gpus] = await Promise.all([
    detectFfmpeg(config.ffmpegPath),
    detectCuda(config.python),
    detectWhisperModels(config.python, config.whisper.model, config.whisper.allowDownload),
    detectFreeDisk(config.workDir),
    detectGpus(),
  ]);
  const nvenc = ffmpeg.encoders.includes('h264_nvenc') ? await detectNvenc(config.ffmpegPath) : false;
  const whisper = resolveWhisperRuntime(config.whisper, cuda.available);
  const host: HostFacts = { ffmpeg, nvenc, cuda, whisperModels, freeDiskBytes: freeDisk, embeddingModel: detectEmbeddingModel() };
  const { kinds: workKinds, missing } = servableKinds(Object.values(pipelines), host, config);

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
    gpus,
    cpu_cores: os.availableParallelism(),
  };
  logger.info(
    { nvenc, cuda: cuda.devices, models: whisperModels.models, whisper, free_disk_bytes: freeDisk, work_kinds: workKinds, missing },
    'capabilities detected',
  );
  return { capabilities, whisper, host, missing };
}
