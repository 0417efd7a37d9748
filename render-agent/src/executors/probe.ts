import { LIMITS } from '@cutroom/shared/limits';
import type { MediaInfo } from '@cutroom/proto';
import { execa } from 'execa';
import { z } from 'zod';
import { PipelineError } from '../errors.ts';
import { asFileUrl, FORMAT_REFUSED, hidePaths, INPUT_GUARD_ARGS, isAcceptedFormat, PROTOCOL_REFUSED, refusedFormatMessage } from './media-path.ts';

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

const NOT_MEDIA = 'the uploaded file is not audio or video that ffprobe can read';

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
    throw new PipelineError('media_invalid', `${NOT_MEDIA} (ffprobe printed no JSON)`);
  }
  const parsed = ProbeOutput.safeParse(raw);
  const formatName = parsed.data?.format?.format_name;
  if (!parsed.success || parsed.data.streams.length === 0 || !formatName) {
    throw new PipelineError('media_invalid', `${NOT_MEDIA} (no streams found)`);
  }
  // ffprobe ran under -format_whitelist already; this also holds for a build that ignores it.
  if (!isAcceptedFormat(formatName)) throw new PipelineError('media_invalid', refusedFormatMessage(formatName));
  const { streams, format } = parsed.data;
  const hasAudio = streams.some((s) => s.codec_type === 'audio');
  const hasVideo = streams.some((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  const streamDurations = streams.map((s) => seconds(s.duration)).filter((d) => d !== null);
  // Some containers (raw ADTS, some webm) report duration only per stream, or only in format.
  const duration = seconds(format?.duration) ?? (streamDurations.length > 0 ? Math.max(...streamDurations) : 0);
  return { duration_seconds: duration, has_video: hasVideo, has_audio: hasAudio, format_name: formatName };
}

/** Rejects media this pipeline cannot transcribe; the messages are shown to the caller. */
export function assertTranscribable(media: MediaInfo): void {
  if (!media.has_audio) {
    throw new PipelineError('media_no_audio', `the uploaded ${media.has_video ? 'video' : 'file'} has no audio stream, so there is nothing to transcribe`);
  }
  if (media.duration_seconds > LIMITS.mediaMaxSeconds) {
    const hours = (LIMITS.mediaMaxSeconds / 3600).toFixed(0);
    throw new PipelineError('media_too_long', `the media is ${(media.duration_seconds / 3600).toFixed(1)} h long; the limit is ${hours} h`);
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
  if (r.exitCode !== 0 && FORMAT_REFUSED.test(stderr)) throw new PipelineError('media_invalid', refusedFormatMessage());
  if (r.exitCode !== 0 && PROTOCOL_REFUSED.test(stderr)) {
    throw new PipelineError('media_invalid', `${NOT_MEDIA} (it refers to other files or URLs, which are not read)`);
  }
  if (r.exitCode !== 0) {
    const why = hidePaths(stderr.trim().split('\n').at(-1) ?? '', { [input]: 'source' });
    throw new PipelineError('media_invalid', `${NOT_MEDIA}${why ? ` (${why})` : ''}`);
  }
  return parseProbeOutput(String(r.stdout));
}
