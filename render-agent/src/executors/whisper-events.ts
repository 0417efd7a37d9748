import { TranscriptSegmentV2 } from '@cutroom/shared/transcript/transcript-v2';
import { z } from 'zod';

/** One JSON line from render-agent/python/transcribe.py (its docstring is the other half). */
export const WhisperEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('info'), language: z.string(), duration: z.number().nonnegative() }),
  z.object({ type: z.literal('progress'), fraction: z.number().min(0).max(1) }),
  TranscriptSegmentV2.extend({ type: z.literal('segment') }),
  z.object({ type: z.literal('done') }),
  z.object({ type: z.literal('error'), code: z.enum(['model_unavailable', 'audio_invalid', 'internal']), message: z.string() }),
]);
export type WhisperEvent = z.infer<typeof WhisperEvent>;

export type ParsedLine = { ok: true; event: WhisperEvent } | { ok: false; line: string; reason: string };

/** Splits a byte stream (already decoded to text) into lines; a partial last line waits. */
export function createLineSplitter(): { push(chunk: string): string[]; end(): string[] } {
  let pending = '';
  return {
    push(chunk) {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      return lines;
    },
    end() {
      const rest = pending;
      pending = '';
      return rest.trim() === '' ? [] : [rest];
    },
  };
}

/** Parses one line; blank lines yield null, anything malformed an explanation (never a throw). */
export function parseWhisperLine(line: string): ParsedLine | null {
  const text = line.trim();
  if (text === '') return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, line: text, reason: 'not JSON' };
  }
  const parsed = WhisperEvent.safeParse(json);
  if (!parsed.success) return { ok: false, line: text, reason: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  return { ok: true, event: parsed.data };
}
