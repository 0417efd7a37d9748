import { FormatName } from '@cutroom/shared/failure-details';
import { inputFailure, type PipelineError } from '../errors.ts';

/**
 * ffmpeg/ffprobe read a bare argument as a URL when it looks like one (`concat:`, `http:`) and
 * as an option when it starts with `-`. The `file:` prefix makes a local path only a path.
 */
export function asFileUrl(localPath: string): string {
  return `file:${localPath}`;
}

/**
 * The ffmpeg demuxers behind the upload formats we accept (shared/src/media-types.ts), by the
 * names `ffmpeg -demuxers` and ffprobe's `format_name` use: `mp3` (MP3), `wav` (WAV), `mov`
 * (the `mov,mp4,m4a,3gp,3g2,mj2` demuxer: MP4, M4A, MOV), `ogg` (OGG, Opus, Vorbis), `flac`
 * (FLAC), `matroska` (the `matroska,webm` demuxer: WebM, MKV), `aac` (raw ADTS AAC), `avi`.
 * Everything else is refused before it is opened, above all the demuxers that open further
 * files or URLs named inside the upload (hls, dash, concat, image2, tee …).
 */
export const ACCEPTED_DEMUXERS = ['mp3', 'wav', 'mov', 'ogg', 'flac', 'matroska', 'aac', 'avi'] as const;

/**
 * Input options for every ffprobe/ffmpeg run on an upload, placed before the input: only the
 * `file` protocol (the input is always a local `file:` path, so nothing else is needed; no
 * demuxer may reach the network, another protocol or a pipe), and only the accepted demuxers
 * (one the probe detects that is not on the list fails with "Format not on whitelist").
 */
export const INPUT_GUARD_ARGS: readonly string[] = ['-protocol_whitelist', 'file', '-format_whitelist', ACCEPTED_DEMUXERS.join(',')];

/**
 * Whether ffprobe's `format_name` (one demuxer's comma-separated names, e.g.
 * `mov,mp4,m4a,3gp,3g2,mj2`) is one of the accepted demuxers.
 */
export function isAcceptedFormat(formatName: string): boolean {
  const names = formatName.split(',').map((n) => n.trim());
  return names.some((n) => (ACCEPTED_DEMUXERS as readonly string[]).includes(n));
}

/**
 * The refusal of a format; `detected` is ffprobe's name for it when known. A name outside the
 * catalogue's pattern is not a parameter; it stays in the message, for the log.
 */
export function formatRefused(detected?: string, cause?: unknown): PipelineError {
  if (detected === undefined || FormatName.safeParse(detected).success) {
    return inputFailure({ code: 'format_refused', params: detected === undefined ? {} : { detected } }, { cause });
  }
  return inputFailure({ code: 'format_refused', params: {} }, { tool: detected, cause });
}

/** ffmpeg/ffprobe's log line when the input's demuxer is not on `-format_whitelist`. */
export const FORMAT_REFUSED = /Format not on whitelist/i;
/** …and when a protocol is not on `-protocol_whitelist`. */
export const PROTOCOL_REFUSED = /Protocol '[^']*' not on whitelist/i;

/**
 * Tool output for a failure message (the log and the attempt row operators read): ffmpeg names its
 * input and output by URL in its messages (`file:/work/<attempt>/source: Invalid data …`); each
 * given path becomes its stand-in, so no work-folder path reaches a failure message.
 */
export function hidePaths(text: string, paths: Record<string, string>): string {
  let out = text;
  // Longest first, so a path that extends another is replaced whole.
  for (const [p, standIn] of Object.entries(paths).sort(([a], [b]) => b.length - a.length)) {
    out = out.replaceAll(asFileUrl(p), standIn).replaceAll(p, standIn);
  }
  return out;
}
