import { CreateJobRequest } from '@cutroom/shared/api';
import { editFromTranscriptContract } from '@cutroom/shared/contracts/edit-from-transcript';
import { JOB_TYPES, priceOf } from '@cutroom/shared/job-types';
import { LIMITS } from '@cutroom/shared/limits';
import { editCuts } from '@cutroom/shared/transcript/edit-cuts';
import { type EditProblem, parseEdit } from '@cutroom/shared/transcript/edit-format';
import { AppError } from '../lib/app-error.ts';
import { parentTranscriptGone } from '../jobs/parent-source.ts';
import { clipFilename, requireParent, requireVideoParent } from './cut-common.ts';
import type { JobTypeDefinition } from './definition.ts';
import { outputFiles } from './contract-files.ts';
import { TRANSCRIPT_ROLE } from './transcript-role.ts';

const EditFromTranscriptRequest = CreateJobRequest.pick({ source_job_id: true, edit: true, title: true, thread_id: true });

/** A refused edit lists at most this many lines: enough to fix it by, without echoing a whole 256 KB text back. */
const PROBLEMS_SHOWN = 200;

const EDIT_TEXT = 'the text of GET /jobs/{source_job_id}/outputs/transcript/download?format=edit with words or lines deleted or lines moved';
const EDIT_HINT = `edit_from_transcript takes \`edit\`: ${EDIT_TEXT}`;
/** A failing line is echoed up to this many characters. */
const LINE_SHOWN_CHARS = 300;

/**
 * edit_from_transcript (a REST extension of the spec's agent-surface product): the caller edits
 * the parent's transcript in the `edit` format (delete words or lines, move lines) and gets the
 * video cut to match, plus the transcript re-timed to it. The edit is checked against the
 * parent's words at creation, before any payment (needsParentTranscript), and becomes a cut list
 * (shared/src/transcript/edit-cuts.ts) that the extract_clip pipeline renders on a cut agent.
 * Created free, paid and started by /process; queued and run as `analyzing`.
 */
export const editFromTranscript: JobTypeDefinition<'edit_from_transcript'> = {
  type: 'edit_from_transcript',
  facts: JOB_TYPES.edit_from_transcript,
  mcp: {
    title: 'Edit a video by editing its transcript',
    description:
      'Get the transcript with get_transcript format edit, delete words or whole lines and move whole lines (adding or changing words is invalid), and send the whole text as edit (max 256 KB): you get the edited video and its re-timed transcript. An invalid edit is refused before payment listing every failing line and costs nothing.',
    required: ['source_job_id', 'edit'],
    rank: 3,
  },
  request: EditFromTranscriptRequest,
  needsParentTranscript: true,
  fieldHints: {
    segments: `${EDIT_HINT}; segments are for extract_clip`,
    start: `${EDIT_HINT}; start/end are for extract_vertical_clip`,
    end: `${EDIT_HINT}; start/end are for extract_vertical_clip`,
    include_transcript: 'edit_from_transcript always outputs the transcript re-timed to the edit (role `transcript`)',
  },
  prepare(req, parentView) {
    const parent = requireParent(req, parentView);
    requireVideoParent('edit_from_transcript', parent);
    if (req.edit === undefined) throw new AppError('invalid_request', `edit is required for edit_from_transcript: ${EDIT_TEXT}`);
    const bytes = Buffer.byteLength(req.edit, 'utf8');
    if (bytes > LIMITS.editTextMaxBytes) {
      throw new AppError('invalid_request', `edit is ${bytes} bytes of UTF-8; at most ${LIMITS.editTextMaxBytes} (256 KB): split the edit over several jobs`);
    }
    if (!parent.transcript) throw parentTranscriptGone('edit_from_transcript', parent.job.id);
    const parsed = parseEdit(parent.transcript, req.edit);
    if (!parsed.ok) throw invalidEdit(parsed.problems);
    // A completed parent has its probed duration; the transcript's is the fallback, never 0.
    const mediaSeconds = parent.media.duration > 0 ? parent.media.duration : parent.transcript.duration;
    const cut = editCuts(parent.transcript, parsed.lines, mediaSeconds);
    if (!cut.ok) throw new AppError('invalid_request', cut.error);
    return {
      originalFilename: clipFilename(parent, 'edit'),
      contentType: 'video/mp4',
      mediaKind: null,
      price: priceOf('edit_from_transcript', null)!,
      params: {
        segments: cut.cuts.map((c) => ({ start: c.start, end: c.end, label: c.label })),
        seconds: cut.seconds,
        title: req.title ?? null,
        thread_id: req.thread_id ?? null,
      },
    };
  },
  workKind: editFromTranscriptContract.workKind,
  stages: ['analyzing'],
  files: outputFiles(editFromTranscriptContract),
  roles: [{ role: 'clip', file: 'clip' }, TRANSCRIPT_ROLE],
  buildAssignment(base, job, { source, parentWordsUrl }) {
    // /process refuses a parent without its transcript; only a DELETE of it after payment lands here.
    if (parentWordsUrl === null) throw new Error(`parent ${job.sourceJobId} of edit ${job.id} lost its transcript before the claim`);
    const segments = job.params['segments'] as { start: number; end: number; label: string | null }[];
    return { ...base, job_type: 'edit_from_transcript', source, params: { segments, parent_words_url: parentWordsUrl } };
  },
  checkMedia: () => null,
  completion(_job, req) {
    return { durationSeconds: req.video.duration_seconds, media: { ...req.media, video: req.video, encoder: req.video.encoder } };
  },
};

/** 400 with every failing line (up to PROBLEMS_SHOWN) in `problems`; the message names the first few. */
function invalidEdit(problems: readonly EditProblem[]): AppError {
  const lines = problems.map((p) => p.line);
  const named = lines.slice(0, 10).join(', ') + (lines.length > 10 ? ', …' : '');
  const shown = problems.length > PROBLEMS_SHOWN ? ` (the first ${PROBLEMS_SHOWN} are listed in problems)` : ' (see problems)';
  return new AppError(
    'invalid_request',
    `the edit cannot be applied: ${problems.length} line${problems.length === 1 ? '' : 's'} (${named}) change${problems.length === 1 ? 's' : ''} the transcript${shown}; only deleting words or lines and moving whole lines is allowed. Nothing was created or charged`,
    {
      problems: problems.slice(0, PROBLEMS_SHOWN).map((p) => (p.text.length > LINE_SHOWN_CHARS ? { ...p, text: `${p.text.slice(0, LINE_SHOWN_CHARS)}…` } : p)),
    },
  );
}
