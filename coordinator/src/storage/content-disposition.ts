// One formatter for both stores, so a download is named the same way wherever it is served.

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what must go from a header value
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/**
 * `attachment; filename="<ascii>"; filename*=UTF-8''<utf8>` (RFC 6266): old clients read the
 * quoted ASCII fallback, current browsers prefer the RFC 5987 form with the real name.
 */
export function formatAttachmentDisposition(filename: string): string {
  const cleaned = filename.replace(CONTROL_CHARACTERS, '').replace(/[\\/]/g, '_').trim();
  const name = cleaned.length > 0 ? cleaned : 'download';
  // Quotes and backslashes would end or escape the quoted-string; non-ASCII is not allowed there.
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Content types travel in signed URLs and headers: refuse anything that could split a header. */
export function assertValidContentType(contentType: string): void {
  if (!/^[\x21-\x7e][\x20-\x7e]*$/.test(contentType) || !contentType.includes('/')) {
    throw new Error(`invalid content type ${JSON.stringify(contentType)}: use a MIME type such as "video/mp4"`);
  }
}
