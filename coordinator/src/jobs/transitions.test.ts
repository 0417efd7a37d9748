import { describe, expect, it } from 'vitest';
import { JobStatus } from '@cutroom/shared/job-types';
import { ACTIVE_STATUSES, TRANSITIONS, canTransition, isTerminal } from './transitions.ts';

describe('job transition table', () => {
  it('lists every status exactly once', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...JobStatus.options].sort());
  });

  it('follows the happy path of a transcription', () => {
    const path: JobStatus[] = ['pending', 'uploading', 'extracting_audio', 'transcribing', 'completed', 'deleted'];
    for (let i = 1; i < path.length; i++) expect(canTransition(path[i - 1]!, path[i]!)).toBe(true);
  });

  it('lets every active status fail and be requeued, but not skip backwards to upload', () => {
    for (const s of ACTIVE_STATUSES) {
      expect(canTransition(s, 'failed')).toBe(true);
      expect(canTransition(s, 'uploading')).toBe(false);
    }
    expect(canTransition('transcribing', 'extracting_audio')).toBe(true);
  });

  it('never leaves a terminal status except completed/failed → deleted, and an operator retry of a failed job to a first stage', () => {
    expect(TRANSITIONS.deleted).toEqual([]);
    expect(TRANSITIONS.completed).toEqual(['deleted']);
    expect(TRANSITIONS.failed).toEqual(['extracting_audio', 'analyzing', 'deleted']);
    expect(canTransition('completed', 'failed')).toBe(false);
    expect(canTransition('failed', 'completed')).toBe(false);
    expect(isTerminal('completed')).toBe(true);
    expect(isTerminal('transcribing')).toBe(false);
  });

  it('never completes a job that was not processed', () => {
    for (const s of ['pending', 'uploading', 'extracting_audio'] as const) expect(canTransition(s, 'completed')).toBe(false);
  });

  it('has no edge to `processing`, which is only a response value', () => {
    for (const targets of Object.values(TRANSITIONS)) expect(targets).not.toContain('processing');
  });
});
