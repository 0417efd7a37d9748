import { describe, expect, it } from 'vitest';
import type { Job } from './api-types.ts';
import { type ClipsDoc, renderCandidates, renderJob, renderJobList, renderSummary } from './render.ts';

const JOB = '3f2a9c1e-0000-4000-8000-000000000001';

describe('renderCandidates', () => {
  const candidate = (rank: number, start: number) => ({
    id: `c${rank}`,
    rank,
    start,
    end: start + 150,
    duration: 150,
    title: `Title ${rank}`,
    hook: `Hook ${rank}`,
    summary: `Summary ${rank}`,
    score: 90 - rank,
    match: null,
  });
  it('lists candidates by rank with their window and the cut command', () => {
    const doc: ClipsDoc = { mode: 'best', query: null, notes: [], candidates: [candidate(2, 300), candidate(1, 12.25)] };
    const lines = renderCandidates(doc, JOB);
    expect(lines[0]).toBe('2 clip candidates, best first:');
    expect(lines[2]).toBe('#1  0:12.3-2:42.3  (2m30s)  score 89  [c1]');
    expect(lines).toContain('    cut: cutroom cut 3f2a9c1e --start 12.25 --end 162.25 [--vertical]');
    expect(lines.indexOf('    Title 1')).toBeLessThan(lines.indexOf('    Title 2'));
  });
  it('says why there is none', () => {
    const doc: ClipsDoc = { mode: 'best', query: null, notes: ['the recording is 27 s long'], candidates: [] };
    expect(renderCandidates(doc, JOB)).toEqual(['no clip candidates found', '  note: the recording is 27 s long']);
  });
  it('shows the match in query mode', () => {
    const doc: ClipsDoc = { mode: 'query', query: 'pricing', notes: [], candidates: [{ ...candidate(1, 0), match: { score: 77, why: 'matched pricing' } }] };
    const lines = renderCandidates(doc, JOB);
    expect(lines[0]).toBe('1 moments matching "pricing":');
    expect(lines[2]).toContain('match 77');
    expect(lines).toContain('    why: matched pricing');
  });
});

describe('renderSummary and renderJob', () => {
  it('prints overview, key points and chapters', () => {
    const lines = renderSummary({ overview: 'All about it.', key_points: [{ text: 'One.' }], chapters: [{ index: 1, start: 65, title: 'Start' }], notes: [] });
    expect(lines).toEqual(['All about it.', '', 'Key points:', '  - One.', '', 'Chapters:', '      1:05  Start']);
  });
  const job = {
    job_id: JOB,
    job_type: 'transcribe',
    status: 'transcribing',
    payment_status: 'paid',
    original_filename: 'talk.mp4',
    content_type: 'video/mp4',
    file_size: 2048,
    duration_seconds: null,
    error_message: null,
    created_at: '2026-01-01T00:00:00.000Z',
    completed_at: null,
    source_job_id: null,
    expires_at: null,
    outputs: [],
  } satisfies Job;
  it('prints the fields a job has', () => {
    expect(renderJob({ ...job, progress: { stage: 'transcribing', fraction: 0.42, at: '' } })).toEqual([
      `job        ${JOB}`,
      'type       transcribe',
      'status     transcribing (42%)',
      'payment    paid',
      'file       talk.mp4 (2.00 KB)',
      'created    2026-01-01T00:00:00.000Z',
    ]);
  });
  it('shows where a waiting job stands in the queue', () => {
    const waiting = {
      ...job,
      job_type: 'summarize',
      status: 'extracting_audio',
      original_filename: 'talk.wav',
      content_type: 'audio/wav',
      file_size: null,
      queue: { position: 2, running: 1, agents: 1, estimated_start_at: '2026-01-01T00:01:10.000Z', estimated_processing_seconds: 110 },
    } satisfies Job;
    expect(renderJob(waiting)).toContain('queue      position 2, 1 running on 1 agent, estimated start 2026-01-01T00:01:10.000Z');
    expect(renderJob({ ...waiting, queue: { ...waiting.queue, agents: 0, running: 0, estimated_start_at: null } })).toContain(
      'queue      position 2, 0 running on 0 agents, no agent takes it now',
    );
  });
});

describe('renderJobList', () => {
  const job = {
    job_id: '3f2a9c1e-0000-4000-8000-000000000001',
    job_type: 'transcribe',
    status: 'completed' as const,
    payment_status: 'paid' as const,
    original_filename: 'talk.mp4',
    content_type: 'video/mp4',
    file_size: 1000,
    duration_seconds: 60,
    error_message: null,
    created_at: '2026-11-28T10:15:42.123Z',
    completed_at: null,
    source_job_id: null,
    bundle_job_id: null,
    expires_at: null,
  };
  it('prints one aligned line a job, newest first as given, failed and refunded said once', () => {
    const cut = {
      ...job,
      job_id: '9b00c1de-0000-4000-8000-000000000002',
      job_type: 'extract_clip',
      status: 'failed' as const,
      payment_status: 'refunded' as const,
    };
    expect(renderJobList([cut, job])).toEqual([
      'JOB       TYPE          STATUS             PAYMENT  CREATED (UTC)     FILE',
      '9b00c1de  extract_clip  failed (refunded)           2026-11-28 10:15  talk.mp4',
      '3f2a9c1e  transcribe    completed          paid     2026-11-28 10:15  talk.mp4',
    ]);
    expect(renderJobList([])).toEqual(['no jobs']);
  });
});
