import { z } from 'zod';
import { TranscriptV2 } from './transcript-v2.ts';

/**
 * The public JSON Schema (draft 2020-12) for the `words` format, generated from the zod schema
 * so the two cannot drift. `$id` is the URL the caller serves it at (it depends on the deployment's
 * public origin, hence an argument).
 */
export function transcriptV2JsonSchema(id: string): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(TranscriptV2, { target: 'draft-2020-12' });
  // Key order is cosmetic but makes the served document read naturally: $schema, $id, title.
  return { $schema, $id: id, title: 'cutroom transcript v2', ...rest };
}
