import { editFromTranscriptContract } from '@cutroom/shared/contracts/edit-from-transcript';
import { ffmpegRuns, h264EncoderAvailable, unmet } from '../capabilities/requirements.ts';
import { runAttemptLifecycle } from './attempt-lifecycle.ts';
import { CUT_AND_JOIN_WRITES, cutAndJoinInto } from './extract-clip.ts';
import type { Pipeline } from './pipeline.ts';

/**
 * edit_from_transcript: the same cut as extract_clip (./extract-clip.ts), of the segments the
 * coordinator built from the caller's edit (up to 300, in the edited order), always with the
 * transcript re-timed. One cut-and-join for both, so an edit renders exactly as the same segments
 * sent to extract_clip would.
 */
export const editFromTranscriptPipeline: Pipeline<'edit_from_transcript'> = {
  kind: editFromTranscriptContract.workKind,
  writes: CUT_AND_JOIN_WRITES,
  missing: unmet(ffmpegRuns, h264EncoderAvailable),
  run: (a, signal, ctx) => runAttemptLifecycle(a, signal, ctx, (dir) => cutAndJoinInto(dir, a, signal, ctx)),
};
