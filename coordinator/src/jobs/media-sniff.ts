import { fileTypeFromBuffer } from 'file-type';

/** How much of an upload is read to tell what it is (file-type's own sample size). */
export const SNIFF_BYTES = 4100;

/** Containers file-type names outside `audio/*` and `video/*` that hold media. */
const MEDIA_CONTAINERS = new Set(['application/ogg', 'application/mp4']);

export type SniffResult = { isMedia: true; mime: string } | { isMedia: false; looksLike: string };

/**
 * What the first bytes of an upload are, by their signature (file-type: the magic numbers of
 * every container we accept: MP3, WAV, M4A/MP4/MOV, OGG/Opus, FLAC, WebM/MKV, AAC, AVI). A file it
 * cannot name (plain text, random bytes) or names as something else (a PDF, a PNG, a ZIP) is not
 * media. Whether an audio container carries a video stream, and so the price, is the agent's
 * probe's to decide: containers such as MP4 and WebM hold either.
 */
export async function sniffMedia(head: Buffer): Promise<SniffResult> {
  const found = await fileTypeFromBuffer(head);
  if (!found) return { isMedia: false, looksLike: looksLikeText(head) ? 'text' : 'in no format we know' };
  if (found.mime.startsWith('audio/') || found.mime.startsWith('video/') || MEDIA_CONTAINERS.has(found.mime)) return { isMedia: true, mime: found.mime };
  return { isMedia: false, looksLike: `a .${found.ext} file (${found.mime})` };
}

/** Printable UTF-8 (or ASCII) with no NUL: a text file, named as such in the refusal. */
function looksLikeText(head: Buffer): boolean {
  if (head.length === 0 || head.includes(0)) return false;
  const text = head.toString('utf8');
  const printable = text.replace(/[^\p{L}\p{N}\p{P}\p{S}\p{Zs}\t\r\n]/gu, '');
  return printable.length >= text.length * 0.95;
}
