import { basename, extname } from 'node:path';

/** Content types the service accepts, by file extension (the spec's input formats). */
const BY_EXTENSION: Record<string, string> = {
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.m4a': 'audio/mp4',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/opus',
  '.flac': 'audio/flac',
  '.aac': 'audio/aac',
  '.weba': 'audio/webm',
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
  '.avi': 'video/x-msvideo',
};

/** The upload content type of a file name, or null for an extension the service does not take. */
export function contentTypeOf(file: string): string | null {
  return BY_EXTENSION[extname(file).toLowerCase()] ?? null;
}

export const SUPPORTED_EXTENSIONS = Object.keys(BY_EXTENSION).map((e) => e.slice(1));

/** "talk.final.mp4" → "talk.final"; a name made safe to write in a folder (no path parts). */
export function stemOf(name: string): string {
  const base = basename(name.replaceAll('\\', '/'));
  const stem = base.replace(/\.[^.]+$/, '');
  const safe = stem.replace(/[^\w.\- ]+/g, '_').replace(/^\.+/, '');
  return safe || 'job';
}

/** The file extension for an output's content type. */
export function extensionOf(contentType: string | null | undefined): string {
  const ct = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const map: Record<string, string> = {
    'video/mp4': 'mp4',
    'audio/mpeg': 'mp3',
    'audio/wav': 'wav',
    'application/json': 'json',
    'text/plain': 'txt',
    'text/vtt': 'vtt',
    'application/x-subrip': 'srt',
    'text/srt': 'srt',
  };
  return map[ct] ?? 'bin';
}
