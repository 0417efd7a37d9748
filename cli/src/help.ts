import { COMMAND_NAMES, type CommandName, usageLine } from './args.ts';
import { SUPPORTED_EXTENSIONS } from './media.ts';

const SUMMARY: Record<CommandName, string> = {
  transcribe: 'Upload an audio or video file and write its transcript next to it',
  summarize: 'Upload a file; write its transcript and summary, print the overview',
  clips: 'Upload a video; print the ranked clip candidates (find_clips), write them as JSON',
  cut: 'Cut a clip (mp4) from a completed job without uploading again',
  status: 'Show a job: status, payment, outputs',
  jobs: "List this session's jobs on the service, newest first",
  download: "Download a job's outputs",
  resume: 'List unfinished jobs this machine started, or continue one',
  help: 'Show help for a command',
};

const DETAILS: Record<CommandName, string> = {
  transcribe: `Creates a transcribe job, pays for it when the service asks (see PAYING), uploads the file
with a progress bar, follows the processing and writes <name>.<format> next to the file
(or in -o dir). Running the same command again on the same unchanged file continues an
unfinished job instead of creating (and paying for) a second one.

  -f, --format F      srt (default), vtt, txt, json (segments), words (per-word timestamps)
  -o, --out DIR       write outputs here (default: next to the input file)
      --language XX   spoken language (default: detected)
      --content-type  media type when the extension does not tell (default: from the extension)
      --limit-rate R  upload at most R bytes per second (500K, 2M)

Accepted files: ${SUPPORTED_EXTENSIONS.join(', ')}.`,
  summarize: `Like transcribe, for a summarize job: writes <name>.srt and <name>.summary.json and prints
the overview, key points and chapters.

  -o, --out DIR, --language XX, --content-type T, --limit-rate R   as for transcribe`,
  clips: `Like transcribe, for a find_clips job (video): writes <name>.clips.json and <name>.srt and
prints the ranked candidates (2-5 minute moments) with their times, so that
\`cutroom cut <job> --start .. --end ..\` can cut one.

  -q, --query TEXT    find the moments about TEXT instead of the best moments
  -o, --out DIR, --language XX, --content-type T, --limit-rate R   as for transcribe`,
  cut: `Cuts [start, end] of a completed job's stored source into an mp4 (extract_clip), or a 9:16
vertical mp4 with --vertical (extract_vertical_clip; --aspect for 4:5 or 1:1), paid per call. Times are seconds
(12.5) or clock times (1:05.5). Writes <name>.clip-<start>-<end>.mp4 (or .vertical-...) in
the current folder or -o dir.

      --start S, --end S  the window, in the parent's time
      --vertical          a 1080x1920 vertical clip, center-cropped
      --profile NAME      vertical encoding: vidA-primary (default), vidA-primary-720p, vidB-reels, vidB-stories
      --aspect A          vertical shape: 9:16 (default, 1080x1920), 4:5 (1080x1350) or 1:1 (1080x1080) for feed posts
  -o, --out DIR           output folder (default: the current folder)`,
  status: `Prints the job's type, status, payment, file, duration, expiry and outputs. A job id may be
shortened to a unique prefix of a job this machine created. Exit 1 if the job failed.

      --json              print the service's job object as JSON`,
  jobs: `Lists the jobs of this machine's session on the service (GET /api/v1/jobs), newest first:
id, type, status, payment, creation time and file, one line each. Finds a job whose id was lost,
including jobs another tool created with the same session token.

      --status S          only jobs in this status (completed, failed, transcribing, ...)
      --type T            only jobs of this type (transcribe, extract_clip, ...)
      --source JOB        only the cuts, edits and bundles made from this job
      --limit N           jobs a page, 1-100 (default 20)
      --all               every page, not only the newest
      --json              print the service's job summaries as JSON ({"jobs": [...]})`,
  download: `Writes the job's outputs (or one --role: transcript, clip, clips, summary, subjects ...) to
files in the current folder or -o dir and prints their paths. Waits for a running job first.

      --role NAME         only this output
  -f, --format F          transcript format: srt (default), vtt, txt, json, words
  -o, --out DIR           output folder`,
  resume: `Without a job: lists the unfinished jobs this machine created (not yet paid, uploaded,
or downloaded). With a job: continues it (pays if still unpaid, uploads the whole file
again if the upload did not complete, follows the processing, writes the outputs).
Running the original command again does the same.

      --limit-rate R      upload at most R bytes per second`,
  help: 'cutroom help <command> shows the options of one command.',
};

const ENVIRONMENT = `ENVIRONMENT
  CUTROOM_URL            service address (default http://127.0.0.1:8080); --url wins
  CUTROOM_CONFIG_DIR     where the session token and job records live
                         (default $XDG_CONFIG_HOME/cutroom or ~/.config/cutroom)
  CUTROOM_WALLET_KEY     0x private key: pay the chain rail (USDC, EIP-3009) automatically
  CUTROOM_MAX_PAYMENT    most USDC paid automatically for one call (default 5)
  CUTROOM_TOKEN_NAME, CUTROOM_TOKEN_VERSION
                         the token's EIP-712 domain, when the service does not publish it
                         (default: what the 402 / .well-known/mpp.json say, else "USD Coin" / "2")
  CUTROOM_PAY_TIMEOUT    seconds to wait for a hosted checkout to be paid (default 900)
  CUTROOM_PROGRESS       bars | plain | none (default: bars on a terminal, plain lines otherwise)

PAYING
  With billing off (the default of \`npm start\`) jobs are free. Otherwise, when the service asks
  for payment (HTTP 402): with CUTROOM_WALLET_KEY set, cutroom signs the chain-rail payment and
  goes on; without it, it prints the hosted checkout URL and waits until the job is paid.

EXIT CODES
  0 done   1 job failed (refunded) or expired   2 usage error   3 payment not completed
  4 service error or unreachable   130 interrupted (Ctrl-C; the job is kept: run the command again)`;

export function helpText(topic: CommandName | undefined): string {
  if (topic) return `usage: ${usageLine(topic)}\n\n${SUMMARY[topic]}.\n\n${DETAILS[topic]}\n\nAll commands take --url URL and -h/--help.`;
  const width = Math.max(...COMMAND_NAMES.map((c) => c.length));
  const commands = COMMAND_NAMES.map((c) => `  ${c.padEnd(width)}  ${SUMMARY[c]}`).join('\n');
  return `cutroom: transcripts, summaries, clip candidates and cuts from the cutroom service.

usage: cutroom <command> [options]   (cutroom <command> --help for its options)

COMMANDS
${commands}

EXAMPLES
  cutroom transcribe talk.mp4 --format srt
  cutroom clips talk.mp4
  cutroom cut 3f2a9c1e --start 12.5 --end 30 --vertical
  cutroom jobs --status failed
  cutroom download 3f2a9c1e --role transcript --format vtt -o out/

${ENVIRONMENT}`;
}
