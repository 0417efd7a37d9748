import { describe, expect, it } from 'vitest';
import { bundleOfCandidates } from './bundle-calls.ts';

describe('clips_from_job as a bundle (bundleOfCandidates)', () => {
  it('makes one vertical clip per candidate by default, carrying profile and subject', () => {
    expect(bundleOfCandidates({ candidate_ids: ['c1', 'c3'], profile: 'vidB-reels', subject: 'auto' })).toEqual({
      job_type: 'clips_vertical',
      clips: [
        { candidate_id: 'c1', profile: 'vidB-reels', subject: 'auto' },
        { candidate_id: 'c3', profile: 'vidB-reels', subject: 'auto' },
      ],
    });
    expect(bundleOfCandidates({ candidate_ids: ['c2'], orientation: 'vertical' })).toEqual({ job_type: 'clips_vertical', clips: [{ candidate_id: 'c2' }] });
  });

  it('makes horizontal clips in the source framing, and refuses a profile or subject for them (400)', () => {
    expect(bundleOfCandidates({ candidate_ids: ['c1'], orientation: 'horizontal' })).toEqual({ job_type: 'clips_horizontal', clips: [{ candidate_id: 'c1' }] });
    for (const extra of [{ profile: 'vidB-reels' as const }, { subject: 'auto' as const }])
      expect(() => bundleOfCandidates({ candidate_ids: ['c1'], orientation: 'horizontal', ...extra })).toThrow(
        expect.objectContaining({ status: 400, message: expect.stringMatching(/profile and subject apply to vertical clips/) }),
      );
  });
});
