import { fileTypeFromBuffer } from 'file-type';
import type { LooksLike } from './failure-details.ts';

/** How much of an upload is read to tell what it is (file-type's own sample size). */
export const SNIFF_BYTES = 4100;

/** Containers file-type names outside `audio/*` and `video/*` that hold media. */
const MEDIA_CONTAINERS = new Set(['application/ogg', 'application/mp4']);

/** Not media: what it looks like in words (`looksLike`, for a refusal's sentence) and as a class (`kind`, for a typed failure detail). */
export type SniffResult = { isMedia: true; mime: string } | { isMedia: false; looksLike: string; kind: LooksLike };

/**
 * What the first bytes of an upload are, by their signature (file-type: the magic numbers of
 * every container we accept: MP3, WAV, M4A/MP4/MOV, OGG/Opus, FLAC, WebM/MKV, AAC, AVI). A file it
 * cannot name (plain text, random bytes) or names as something else (a PDF, a PNG, a ZIP) is not
 * media. Whether an audio container carries a video stream, and so the price, is the agent's
 * probe's to decide: containers such as MP4 and WebM hold either.
 */
export async function sniffMedia(head: Buffer): Promise<SniffResult> {
  const found = await fileTypeFromBuffer(head);
  if (!found) {
    if (!looksLikeText(head)) return { isMedia: false, looksLike: 'in no format we know', kind: 'other' };
    // A URL of a web page (the video's page rather than its file) answers HTML.
    if (/^\s*(<!doctype html|<html|<head|<body)/i.test(head.subarray(0, 512).toString('utf8')))
      return { isMedia: false, looksLike: 'a web page (HTML)', kind: 'web_page' };
    return { isMedia: false, looksLike: 'text', kind: 'text' };
  }
  if (found.mime.startsWith('audio/') || found.mime.startsWith('video/') || MEDIA_CONTAINERS.has(found.mime)) return { isMedia: true, mime: found.mime };
  return { isMedia: false, looksLike: `a .${found.ext} file (${found.mime})`, kind: kindOf(found.mime) };
}

const ARCHIVES = /^application\/(zip|gzip|x-tar|x-7z-compressed|x-rar-compressed|vnd\.rar|x-bzip2|x-xz|zstd)$/;
const DOCUMENTS = /^application\/(pdf|msword|rtf|epub\+zip|vnd\.(openxmlformats|oasis|ms-))/;

function kindOf(mime: string): LooksLike {
  if (mime.startsWith('image/')) return 'image';
  if (DOCUMENTS.test(mime)) return 'document';
  if (ARCHIVES.test(mime)) return 'archive';
  return 'other';
}

/** Printable UTF-8 (or ASCII) with no NUL: a text file, named as such in the refusal. */
function looksLikeText(head: Buffer): boolean {
  if (head.length === 0 || head.includes(0)) return false;
  const text = head.toString('utf8');
  const printable = text.replace(/[^\p{L}\p{N}\p{P}\p{S}\p{Zs}\t\r\n]/gu, '');
  return printable.length >= text.length * 0.95;
}
