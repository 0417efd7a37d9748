import { LIMITS } from '@cutroom/shared/limits';
import type { MediaInfo } from '@cutroom/proto';
import { execa } from 'execa';
import { z } from 'zod';
import { inputFailure, PipelineError } from '../errors.ts';
import { asFileUrl, FORMAT_REFUSED, formatRefused, hidePaths, INPUT_GUARD_ARGS, isAcceptedFormat, PROTOCOL_REFUSED } from './media-path.ts';

/** The slice of `ffprobe -print_format json -show_format -show_streams` that we read. */
const ProbeOutput = z.object({
  streams: z
    .array(
      z.object({
        codec_type: z.string().optional(),
        codec_name: z.string().optional(),
        duration: z.string().optional(),
        disposition: z.object({ attached_pic: z.number().optional() }).partial().optional(),
      }),
    )
    .default([]),
  format: z.object({ format_name: z.string().optional(), duration: z.string().optional() }).optional(),
});

function seconds(value: string | undefined): number | null {
  const n = value === undefined ? Number.NaN : Number.parseFloat(value);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/**
 * ffprobe's JSON → MediaInfo, or a classified failure. Cover art in an mp3/m4a is a video
 * stream with disposition.attached_pic; it does not make the file a video.
 */
export function parseProbeOutput(json: string): MediaInfo {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw inputFailure({ code: 'not_media', params: { reason: 'no_json' } });
  }
  const parsed = ProbeOutput.safeParse(raw);
  const formatName = parsed.data?.format?.format_name;
  if (!parsed.success || parsed.data.streams.length === 0 || !formatName) {
    throw inputFailure({ code: 'not_media', params: { reason: 'no_streams' } });
  }
  // ffprobe ran under -format_whitelist already; this also holds for a build that ignores it.
  if (!isAcceptedFormat(formatName)) throw formatRefused(formatName);
  const { streams, format } = parsed.data;
  const hasAudio = streams.some((s) => s.codec_type === 'audio');
  const hasVideo = streams.some((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  const streamDurations = streams.map((s) => seconds(s.duration)).filter((d) => d !== null);
  // Some containers (raw ADTS, some webm) report duration only per stream, or only in format.
  const duration = seconds(format?.duration) ?? (streamDurations.length > 0 ? Math.max(...streamDurations) : 0);
  return { duration_seconds: duration, has_video: hasVideo, has_audio: hasAudio, format_name: formatName };
}

/** Rejects media this pipeline cannot transcribe, with the details the caller reads. */
export function assertTranscribable(media: MediaInfo): void {
  if (!media.has_audio) {
    throw inputFailure({ code: 'no_audio', params: { has_video: media.has_video } });
  }
  if (media.duration_seconds > LIMITS.mediaMaxSeconds) {
    throw inputFailure({ code: 'too_long', params: { duration_seconds: media.duration_seconds } });
  }
}

/** ffprobe's arguments: the input guard (protocols, demuxers) before the input, JSON out. */
export function buildProbeArgs(input: string): string[] {
  return ['-v', 'error', ...INPUT_GUARD_ARGS, '-print_format', 'json', '-show_format', '-show_streams', asFileUrl(input)];
}

/**
 * Probes a local file. Throws PipelineError(media_invalid) when ffprobe cannot read it or its
 * format is not one we accept. Unbounded by itself: the pipeline runs it under its stage limit
 * (`signal` kills ffprobe's whole process group).
 */
export async function probeMedia(ffprobePath: string, input: string, signal?: AbortSignal): Promise<MediaInfo> {
  const r = await execa(ffprobePath, buildProbeArgs(input), {
    reject: false,
    killDescendants: true,
    forceKillAfterDelay: 2_000,
    ...(signal ? { cancelSignal: signal } : {}),
  });
  signal?.throwIfAborted();
  if (r.failed && r.exitCode === undefined) {
    // Not started or killed (ENOENT, a signal): our problem, not the file's. No command line in
    // the message (it names the work folder).
    throw new PipelineError('tool_failed', `ffprobe could not run (${r.code ?? r.signal ?? 'no exit status'})`);
  }
  const stderr = String(r.stderr);
  if (r.exitCode !== 0 && FORMAT_REFUSED.test(stderr)) throw formatRefused();
  if (r.exitCode !== 0 && PROTOCOL_REFUSED.test(stderr)) {
    throw inputFailure({ code: 'not_media', params: { reason: 'refers_to_other_files' } });
  }
  if (r.exitCode !== 0) {
    const why = hidePaths(stderr.trim().split('\n').at(-1) ?? '', { [input]: 'source' });
    // ffprobe's own line is for the log; the caller reads the sentence alone.
    throw inputFailure({ code: 'not_media', params: { reason: 'unreadable' } }, { tool: why });
  }
  return parseProbeOutput(String(r.stdout));
}
