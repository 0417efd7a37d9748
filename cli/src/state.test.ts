import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError } from './errors.ts';
import { findUnfinished, JobBook, type JobRecord, prune, resolveJobRef } from './state.ts';

const file = { path: '/media/talk.mp4', size: 1000, mtime_ms: 1700000000000 };
const record = (over: Partial<JobRecord>): JobRecord => ({
  job_id: '11111111-1111-4111-8111-111111111111',
  job_type: 'transcribe',
  url: 'http://127.0.0.1:8080',
  created_at: '2026-01-01T00:00:00.000Z',
  file: { ...file, content_type: 'video/mp4' },
  request_key: '{}',
  stage: 'paid',
  deliver: {},
  ...over,
});
const probe = { url: 'http://127.0.0.1:8080', job_type: 'transcribe', request_key: '{}', file };

describe('findUnfinished', () => {
  it('finds the unfinished job of the same command on the same unchanged file, newest first', () => {
    const older = record({ job_id: 'a', created_at: '2026-01-01T00:00:00.000Z' });
    const newer = record({ job_id: 'b', created_at: '2026-01-02T00:00:00.000Z', stage: 'created' });
    expect(findUnfinished([older, newer], probe)?.job_id).toBe('b');
  });

  it('does not match a finished job, a changed file, another type, query, service or parent', () => {
    const r = record({});
    expect(findUnfinished([record({ stage: 'done' })], probe)).toBeUndefined();
    expect(findUnfinished([r], { ...probe, file: { ...file, size: 1001 } })).toBeUndefined();
    expect(findUnfinished([r], { ...probe, file: { ...file, mtime_ms: file.mtime_ms + 1 } })).toBeUndefined();
    expect(findUnfinished([r], { ...probe, file: { ...file, path: '/media/other.mp4' } })).toBeUndefined();
    expect(findUnfinished([r], { ...probe, job_type: 'summarize' })).toBeUndefined();
    expect(findUnfinished([r], { ...probe, request_key: '{"query":"x"}' })).toBeUndefined();
    expect(findUnfinished([r], { ...probe, url: 'http://other:8080' })).toBeUndefined();
    expect(findUnfinished([r], { ...probe, source_job_id: 'p' })).toBeUndefined();
  });

  it('matches derivatives (no file) by parent and window', () => {
    const cut = record({ job_type: 'extract_clip', file: undefined, source_job_id: 'p1', request_key: '{"segments":[{"start":1,"end":2}]}' });
    const p = { url: cut.url, job_type: 'extract_clip', request_key: cut.request_key, source_job_id: 'p1' };
    expect(findUnfinished([cut], p)).toBe(cut);
    expect(findUnfinished([cut], { ...p, source_job_id: 'p2' })).toBeUndefined();
    expect(findUnfinished([cut], { ...p, file })).toBeUndefined();
  });
});

describe('resolveJobRef', () => {
  const records = [record({ job_id: '3f2a9c1e-0000-4000-8000-000000000001' }), record({ job_id: '3f2b0000-0000-4000-8000-000000000002' })];
  it('takes full ids as they are and unique prefixes of recorded ids', () => {
    expect(resolveJobRef([], '3F2A9C1E-0000-4000-8000-000000000009')).toBe('3f2a9c1e-0000-4000-8000-000000000009');
    expect(resolveJobRef(records, '3f2a')).toBe('3f2a9c1e-0000-4000-8000-000000000001');
  });
  it('refuses ambiguous, unknown and malformed references', () => {
    expect(() => resolveJobRef(records, '3f2')).toThrow(CliError);
    expect(() => resolveJobRef(records, '3f2c')).toThrow(/no job starting with/);
    expect(() => resolveJobRef(records, '3f2')).toThrow(/at least|matches 2 jobs|not a job id/);
    expect(() => resolveJobRef(records, 'talk.mp4')).toThrow(/not a job id/);
  });
});

describe('prune and JobBook', () => {
  it('keeps every unfinished record and the newest 100 finished', () => {
    const finished = Array.from({ length: 120 }, (_, i) =>
      record({ job_id: `f${i}`, stage: 'done', finished_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() }),
    );
    const kept = prune([...finished, record({ job_id: 'open' })]);
    expect(kept).toHaveLength(101);
    expect(kept.some((r) => r.job_id === 'open')).toBe(true);
    expect(kept.some((r) => r.job_id === 'f0')).toBe(false);
    expect(kept.some((r) => r.job_id === 'f119')).toBe(true);
  });

  it('stores records in a 0600 file and updates them', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'cutroom-cli-')), 'cfg');
    const book = new JobBook(dir);
    expect(book.all()).toEqual([]);
    book.put(record({ job_id: 'x', stage: 'created' }));
    book.patch('x', { stage: 'paid' });
    expect(book.get('x')?.stage).toBe('paid');
    book.finish('x');
    expect(book.get('x')).toMatchObject({ stage: 'done', finished_at: expect.any(String) });
    expect(statSync(book.file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(book.file, 'utf8')).version).toBe(1);
  });
});
