// A single `Range: bytes=…` request (RFC 9110 §14): what video players send to seek.

export type ByteRangeResult =
  | { kind: 'full' }
  /** inclusive byte offsets */
  | { kind: 'partial'; start: number; end: number }
  | { kind: 'unsatisfiable' };

/**
 * Multi-range requests, other units and malformed headers yield 'full': RFC 9110 lets a server
 * ignore a Range header it does not support and send the whole representation with 200.
 */
export function parseByteRange(header: string | undefined, size: number): ByteRangeResult {
  if (!header) return { kind: 'full' };
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return { kind: 'full' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'full' };

  if (first === '') {
    // Suffix range: the last N bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'full' }; // invalid syntax: ignore it
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: 'partial', start, end };
}
