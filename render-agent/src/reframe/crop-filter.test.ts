import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SubjectsV1 } from '@cutroom/shared/clips/subjects-v1';
import { buildCropCommands, CROP_COMMANDS_FILE, cropFilter, escapeFilterValue } from './crop-filter.ts';

const doc = (path: SubjectsV1['crop']['path'], scaledOnly = false): SubjectsV1 => ({
  version: 1,
  strategy: 'follow',
  source: { width: 1280, height: 720, fps: 25 },
  clip: { start: 10, end: 12 },
  detector: null,
  shots: [],
  subjects: [],
  chosen_subject_id: null,
  crop: { width: 406, height: 720, scaled_only: scaledOnly, path },
});

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('escapeFilterValue', () => {
  it('escapes for the option parser, then for the graph parser', () => {
    expect(escapeFilterValue('/tmp/plain/file.cmd')).toBe('/tmp/plain/file.cmd');
    expect(escapeFilterValue('/a b:c')).toBe(String.raw`/a b\\:c`);
    expect(escapeFilterValue("it's")).toBe(String.raw`it\\\'s`);
    expect(escapeFilterValue('a,b;c[d]')).toBe(String.raw`a\,b\;c\[d\]`);
    expect(escapeFilterValue(String.raw`back\slash`)).toBe(String.raw`back\\\\slash`);
  });
});

describe('buildCropCommands', () => {
  it('writes one command line per change after the first point, half a frame early', () => {
    const text = buildCropCommands(
      [
        { t: 0, x: 100, y: 0 },
        { t: 0.04, x: 104, y: 0 },
        { t: 3, x: 800, y: 0 },
      ],
      25,
    );
    expect(text.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual([
      '0.020000 crop@reframe x 104, crop@reframe y 0;',
      '2.980000 crop@reframe x 800, crop@reframe y 0;',
    ]);
  });
});

describe('cropFilter', () => {
  it('is a plain crop for a window that never moves', async () => {
    expect(await cropFilter(doc([{ t: 0, x: 438, y: 0 }]), 25, '/nonexistent')).toBe('crop=406:720:438:0');
    expect(
      await cropFilter(
        doc([
          { t: 0, x: 438, y: 0 },
          { t: 3, x: 438, y: 0 },
        ]),
        25,
        '/nonexistent',
      ),
    ).toBe('crop=406:720:438:0');
  });

  it('is empty for a vertical source (scaled, not cropped)', async () => {
    expect(await cropFilter(doc([{ t: 0, x: 0, y: 0 }], true), 25, '/nonexistent')).toBe('');
  });

  it('drives a named crop from a sendcmd script written in the work folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crop filter, '));
    dirs.push(dir);
    const filter = await cropFilter(
      doc([
        { t: 0, x: 0, y: 0 },
        { t: 1, x: 50, y: 0 },
      ]),
      25,
      dir,
    );
    expect(filter).toBe(`sendcmd=f=${escapeFilterValue(join(dir, CROP_COMMANDS_FILE))},crop@reframe=406:720:0:0`);
    expect(await readFile(join(dir, CROP_COMMANDS_FILE), 'utf8')).toContain('0.980000 crop@reframe x 50, crop@reframe y 0;');
  });
});
