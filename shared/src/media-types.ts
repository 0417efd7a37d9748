/**
 * Accepted upload media types, from the spec's input formats. Audio: MP3, WAV, M4A, OGG, FLAC,
 * WebM, AAC. Video: MP4, MOV, WebM, MKV, AVI. Common aliases browsers and tools send are
 * included; parameters (`; codecs=…`) are ignored when matching.
 */
export const AUDIO_CONTENT_TYPES = [
  'audio/mpeg',
  'audio/mp3',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/vnd.wave',
  'audio/mp4',
  'audio/m4a',
  'audio/x-m4a',
  'audio/ogg',
  'audio/opus',
  'audio/flac',
  'audio/x-flac',
  'audio/webm',
  'audio/aac',
  'audio/x-aac',
  'audio/aacp',
] as const;

export const VIDEO_CONTENT_TYPES = [
  'video/mp4',
  'video/quicktime',
  'video/webm',
  'video/x-matroska',
  'video/matroska',
  'video/x-msvideo',
  'video/avi',
  'video/msvideo',
] as const;

export type MediaKind = 'audio' | 'video';

/** Lower-cases and strips parameters: `Audio/MP4; codecs=mp4a` → `audio/mp4`. */
export function normalizeContentType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/** The media kind a content type declares, or null when the spec does not accept it. */
export function mediaKindOf(contentType: string): MediaKind | null {
  const ct = normalizeContentType(contentType);
  if ((AUDIO_CONTENT_TYPES as readonly string[]).includes(ct)) return 'audio';
  if ((VIDEO_CONTENT_TYPES as readonly string[]).includes(ct)) return 'video';
  return null;
}
