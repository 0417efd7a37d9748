// multipart/related bodies as Google's upload front end takes them (uploadType=multipart): the
// metadata JSON part, then the media part. googleapis-common writes
//   --B\r\ncontent-type: application/json\r\n\r\n{…}\r\n--B\r\ncontent-type: video/mp4\r\n\r\n<bytes>\r\n--B--
// The media is binary, so parts are cut out of the Buffer, never decoded as text.

export interface BodyPart {
  headers: Record<string, string>;
  body: Buffer;
}

export class MultipartError extends Error {
  override name = 'MultipartError';
}

export function boundaryOf(contentType: string): string | null {
  if (!/^multipart\/related\b/i.test(contentType.trim())) return null;
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

export function parseMultipart(body: Buffer, boundary: string): BodyPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  let pos = body.indexOf(delimiter);
  if (pos === -1) throw new MultipartError('Missing the first boundary of the multipart body.');
  const parts: BodyPart[] = [];
  for (;;) {
    pos += delimiter.length;
    if (body.subarray(pos, pos + 2).toString('latin1') === '--') return parts; // closing delimiter
    if (body.subarray(pos, pos + 2).toString('latin1') !== '\r\n') throw new MultipartError('Malformed boundary line.');
    pos += 2;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    if (headerEnd === -1) throw new MultipartError('A part has no end of headers.');
    const headers: Record<string, string> = {};
    for (const line of body.subarray(pos, headerEnd).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), headerEnd + 4);
    if (next === -1) throw new MultipartError('A part is not closed by a boundary.');
    parts.push({ headers, body: body.subarray(headerEnd + 4, next) });
    pos = next + 2;
  }
}
