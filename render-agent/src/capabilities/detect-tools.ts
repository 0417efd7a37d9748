import fs from 'node:fs/promises';
import { execa } from 'execa';
import { z } from 'zod';
import { CHECK_MODEL_SCRIPT, pythonEnv } from '../python-scripts.ts';
import { parseEncoderList, parseFfmpegVersion, parseNvidiaSmiList, parseNvidiaSmiGpus } from './parse-tool-output.ts';

/**
 * Each probe answers "what can this host really do?" by running the tool. A probe that cannot
 * run reports absence (and why) rather than throwing: the agent decides what that means.
 */

export interface FfmpegInfo {
  version: string | null;
  encoders: string[];
  error?: string;
}

export async function detectFfmpeg(ffmpegPath: string): Promise<FfmpegInfo> {
  try {
    const [ver, enc] = await Promise.all([
      execa(ffmpegPath, ['-version'], { timeout: 15_000 }),
      execa(ffmpegPath, ['-hide_banner', '-encoders'], { timeout: 15_000 }),
    ]);
    return { version: parseFfmpegVersion(ver.stdout), encoders: parseEncoderList(enc.stdout) };
  } catch (err) {
    return { version: null, encoders: [], error: (err as Error).message };
  }
}

/**
 * NVENC is present only if a session opens: the encoder is compiled into Debian's ffmpeg
 * everywhere, and datacenter GPUs (H100, H200) have CUDA but no NVENC unit.
 */
export async function detectNvenc(ffmpegPath: string): Promise<boolean> {
  const args = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'color=size=256x256:duration=0.04',
    '-frames:v',
    '1',
    '-c:v',
    'h264_nvenc',
    '-f',
    'null',
    '-',
  ];
  const r = await execa(ffmpegPath, args, { reject: false, timeout: 20_000 });
  return r.exitCode === 0;
}

export interface CudaInfo {
  available: boolean;
  devices: string[];
}

/** CUDA as CTranslate2 sees it (that is what Whisper will use), named by nvidia-smi when present. */
export async function detectCuda(python: string): Promise<CudaInfo> {
  const ct2 = await execa(python, ['-c', 'import ctranslate2; print(ctranslate2.get_cuda_device_count())'], { reject: false, timeout: 30_000 });
  const count = ct2.exitCode === 0 ? Number.parseInt(String(ct2.stdout).trim(), 10) || 0 : 0;
  const smi = await execa('nvidia-smi', ['-L'], { reject: false, timeout: 10_000 });
  const names = smi.exitCode === 0 ? parseNvidiaSmiList(String(smi.stdout)) : [];
  const devices = names.length > 0 ? names : Array.from({ length: count }, (_, i) => `cuda:${i}`);
  return { available: count > 0, devices: count > 0 ? devices : [] };
}

/** GPUs with their memory (VRAM), from nvidia-smi; empty without a driver. */
export async function detectGpus(): Promise<{ name: string; memory_mib: number }[]> {
  const smi = await execa('nvidia-smi', ['--query-gpu=name,memory.total', '--format=csv,noheader,nounits'], { reject: false, timeout: 10_000 });
  return smi.exitCode === 0 ? parseNvidiaSmiGpus(String(smi.stdout)) : [];
}

const ModelList = z.object({ models: z.array(z.string()) });

export interface WhisperModelsInfo {
  /** Whether the Python child can run at all (faster-whisper importable). */
  isRunnable: boolean;
  models: string[];
  error?: string;
}

/** Models loadable offline, plus the configured one when it is a loadable folder or name. */
export async function detectWhisperModels(python: string, configuredModel: string, allowDownload: boolean): Promise<WhisperModelsInfo> {
  const env = pythonEnv(allowDownload);
  const listed = await execa(python, [CHECK_MODEL_SCRIPT, '--list'], { reject: false, timeout: 60_000, env });
  if (listed.exitCode !== 0) {
    return { isRunnable: false, models: [], error: String(listed.stderr || listed.message).slice(-500) };
  }
  let models: string[];
  try {
    models = ModelList.parse(JSON.parse(String(listed.stdout))).models;
  } catch (err) {
    return { isRunnable: false, models: [], error: `check_model.py --list printed no model list: ${(err as Error).message}` };
  }
  if (!models.includes(configuredModel)) {
    const one = await execa(python, [CHECK_MODEL_SCRIPT, configuredModel], { reject: false, timeout: 60_000, env });
    if (one.exitCode === 0) models.push(configuredModel);
  }
  return { isRunnable: true, models };
}

/** Free bytes for an unprivileged writer on WORK_DIR's file system (created if missing). */
export async function detectFreeDisk(workDir: string): Promise<number> {
  await fs.mkdir(workDir, { recursive: true });
  const s = await fs.statfs(workDir);
  return Number(s.bavail) * Number(s.bsize);
}
