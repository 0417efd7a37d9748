import { describe, expect, it } from 'vitest';
import { transcriptV2JsonSchema } from './json-schema.ts';
import { seg, transcript } from './test-fixtures.ts';
import { TranscriptV2 } from './transcript-v2.ts';

const ID = 'https://cutroom.example/.well-known/cutroom-transcript-v2.schema.json';

interface ObjectSchema {
  type: string;
  required: string[];
  properties: Record<string, { type?: string; items?: ObjectSchema; properties?: Record<string, unknown> }>;
}

describe('transcriptV2JsonSchema', () => {
  const schema = transcriptV2JsonSchema(ID);

  it('a valid sample passes zod; an invalid one does not', () => {
    const sample = transcript([seg(0, 0, 1, ' Hi', [{ start: 0, end: 1, word: 'Hi', probability: 0.75 }])]);
    expect(TranscriptV2.safeParse(sample).success).toBe(true);
    expect(TranscriptV2.safeParse({ ...sample, version: 1 }).success).toBe(false);
    expect(TranscriptV2.safeParse({ ...sample, duration: Number.NaN }).success).toBe(false);
  });

  it('is draft 2020-12 with the caller-supplied $id and the title', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(ID);
    expect(schema.title).toBe('cutroom transcript v2');
    expect(Object.keys(schema).slice(0, 3)).toEqual(['$schema', '$id', 'title']);
  });

  it('requires the top-level fields and describes words', () => {
    const root = schema as unknown as ObjectSchema;
    expect(root.type).toBe('object');
    expect(root.required).toEqual(expect.arrayContaining(['version', 'language', 'duration', 'segments']));
    const segment = root.properties.segments!.items!;
    expect(segment.required).toEqual(expect.arrayContaining(['id', 'start', 'end', 'text', 'words']));
    const word = segment.properties.words!.items!;
    expect(Object.keys(word.properties)).toEqual(expect.arrayContaining(['start', 'end', 'word', 'probability']));
    expect(word.required).toEqual(expect.arrayContaining(['start', 'end', 'word', 'probability']));
  });

  it('is plain JSON (serializable) and stable across calls', () => {
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    expect(transcriptV2JsonSchema(ID)).toEqual(schema);
  });
});
