/**
 * Pure parsers for the text that ffmpeg and nvidia-smi print. Kept apart from the code that
 * runs them so they can be tested against captured output.
 */

/** `ffmpeg version 5.1.9-0+deb12u1 Copyright …` → `5.1.9-0+deb12u1`; `n7.1` builds keep their tag. */
export function parseFfmpegVersion(versionOutput: string): string | null {
  const m = /^ffmpeg version (\S+)/m.exec(versionOutput);
  return m?.[1] ?? null;
}

/**
 * `ffmpeg -hide_banner -encoders` lists a legend, a `------` rule, then one encoder per line:
 * ` V....D h264_nvenc           NVIDIA NVENC H.264 encoder (codec h264)`. The first column is
 * six capability flags whose first letter is the media type (V, A or S).
 */
export function parseEncoderList(encodersOutput: string): string[] {
  const lines = encodersOutput.split(/\r?\n/);
  const rule = lines.findIndex((l) => l.trim().startsWith('------'));
  const names: string[] = [];
  for (const line of lines.slice(rule + 1)) {
    const m = /^\s*([VAS][A-Z.]{5})\s+(\S+)/.exec(line);
    if (m?.[2]) names.push(m[2]);
  }
  return names;
}

/** `nvidia-smi -L`: `GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-…)` → `NVIDIA H100 80GB HBM3`. */
export function parseNvidiaSmiList(output: string): string[] {
  const names: string[] = [];
  for (const line of output.split(/\r?\n/)) {
    const m = /^GPU \d+: (.+?)(?: \(UUID: [^)]*\))?\s*$/.exec(line);
    if (m?.[1]) names.push(m[1]);
  }
  return names;
}

/**
 * `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits` → [{name, memory_mib}]:
 * one line per GPU, `NVIDIA H100 80GB HBM3, 81559`. Lines that do not parse are skipped.
 */
export function parseNvidiaSmiGpus(output: string): { name: string; memory_mib: number }[] {
  const gpus: { name: string; memory_mib: number }[] = [];
  for (const line of output.split('\n')) {
    const m = /^(.+?),\s*(\d+)\s*$/.exec(line.trim());
    if (m) gpus.push({ name: m[1]!.trim(), memory_mib: Number(m[2]) });
  }
  return gpus;
}
