import { z } from 'zod';
import { ClipsV1 } from './clips-v1.ts';
import { SubjectsV1 } from './subjects-v1.ts';
import { SummaryV1 } from '../summary/summary-v1.ts';

/**
 * The public JSON Schema (draft 2020-12) of the `subjects` output of extract_vertical_clip,
 * generated from the zod schema the coordinator validates uploads with. `$id` is where it is served.
 */
export function subjectsV1JsonSchema(id: string): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(SubjectsV1, { target: 'draft-2020-12' });
  return { $schema, $id: id, title: 'cutroom subjects v1', ...rest };
}

/**
 * The public JSON Schema (draft 2020-12) of the find_clips candidates document, generated from
 * the zod schema the agent validates its result with. `$id` is where it is served.
 */
export function clipsV1JsonSchema(id: string): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(ClipsV1, { target: 'draft-2020-12' });
  return { $schema, $id: id, title: 'cutroom clips v1', ...rest };
}

/**
 * The public JSON Schema (draft 2020-12) of the summarize job's `summary` document, generated from
 * the zod schema the agent validates its result with. `$id` is where it is served.
 */
export function summaryV1JsonSchema(id: string): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(SummaryV1, { target: 'draft-2020-12' });
  return { $schema, $id: id, title: 'cutroom summary v1', ...rest };
}
