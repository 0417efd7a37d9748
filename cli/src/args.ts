import { parseArgs } from 'node:util';
import { usageError } from './errors.ts';
import { parseClock, parseSize } from './format.ts';

/** Transcript formats the download route serves (`srt` as a file URL, the others inline). */
export const TRANSCRIPT_FORMATS = ['srt', 'vtt', 'txt', 'json', 'words', 'edit'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** extract_vertical_clip encoding profiles (spec "Profiles"). */
export const PROFILES = ['vidA-primary', 'vidA-primary-720p', 'vidB-reels', 'vidB-stories'] as const;

/** extract_vertical_clip shapes (the service's `aspect`): 9:16 by default, 4:5 and 1:1 for feed posts. */
export const ASPECTS = ['9:16', '4:5', '1:1'] as const;

export const COMMAND_NAMES = ['transcribe', 'summarize', 'clips', 'cut', 'status', 'jobs', 'download', 'resume', 'help'] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

/** Job statuses (the service's), for `cutroom jobs --status`. */
export const JOB_STATUSES = ['pending', 'uploading', 'extracting_audio', 'transcribing', 'analyzing', 'publishing', 'completed', 'failed', 'deleted'] as const;

/** What an upload command asks for (transcribe, summarize, clips). */
export interface UploadOptions {
  file: string;
  outDir: string | undefined;
  language: string | undefined;
  contentType: string | undefined;
  /** Upload bytes per second at most (curl's --limit-rate). */
  limitRate: number | undefined;
}

export type Command =
  | { name: 'help'; topic: CommandName | undefined }
  | { name: 'version' }
  | ({ name: 'transcribe'; format: TranscriptFormat } & UploadOptions)
  | ({ name: 'summarize' } & UploadOptions)
  | ({ name: 'clips'; query: string | undefined } & UploadOptions)
  | { name: 'cut'; job: string; start: number; end: number; vertical: boolean; profile: string | undefined; aspect?: string; outDir: string | undefined }
  | { name: 'status'; job: string; json: boolean }
  | { name: 'jobs'; status: string | undefined; type: string | undefined; source: string | undefined; limit: number; all: boolean; json: boolean }
  | { name: 'download'; job: string; role: string | undefined; format: TranscriptFormat | undefined; outDir: string | undefined }
  | { name: 'resume'; job: string | undefined; limitRate: number | undefined };

export interface CommandLine {
  command: Command;
  /** --url (wins over CUTROOM_URL). */
  url: string | undefined;
}

type OptionSpec = { type: 'string' | 'boolean'; short?: string };
const COMMON: Record<string, OptionSpec> = { url: { type: 'string' }, help: { type: 'boolean', short: 'h' } };
const UPLOAD: Record<string, OptionSpec> = {
  out: { type: 'string', short: 'o' },
  language: { type: 'string' },
  'content-type': { type: 'string' },
  'limit-rate': { type: 'string' },
};

/** Each command's options (besides --url and --help) and its positional arguments. */
const SPECS: Record<Exclude<CommandName, 'help'>, { options: Record<string, OptionSpec>; positionals: string[] }> = {
  transcribe: { options: { ...UPLOAD, format: { type: 'string', short: 'f' } }, positionals: ['file'] },
  summarize: { options: UPLOAD, positionals: ['file'] },
  clips: { options: { ...UPLOAD, query: { type: 'string', short: 'q' } }, positionals: ['file'] },
  cut: {
    options: {
      start: { type: 'string' },
      end: { type: 'string' },
      vertical: { type: 'boolean' },
      profile: { type: 'string' },
      aspect: { type: 'string' },
      out: { type: 'string', short: 'o' },
    },
    positionals: ['job'],
  },
  status: { options: { json: { type: 'boolean' } }, positionals: ['job'] },
  jobs: {
    options: {
      status: { type: 'string' },
      type: { type: 'string' },
      source: { type: 'string' },
      limit: { type: 'string' },
      all: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    positionals: [],
  },
  download: { options: { role: { type: 'string' }, format: { type: 'string', short: 'f' }, out: { type: 'string', short: 'o' } }, positionals: ['job'] },
  resume: { options: { 'limit-rate': { type: 'string' } }, positionals: ['job?'] },
};

const isCommandName = (s: string): s is CommandName => (COMMAND_NAMES as readonly string[]).includes(s);

/**
 * Parses `cutroom <command> [options] [args]` (options may come before the command too:
 * `cutroom --url http://host transcribe talk.mp4`). Throws a usage CliError (exit 2).
 */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const args = [...argv];
  let url: string | undefined;
  // Leading global options.
  while (args[0]?.startsWith('-')) {
    const a = args.shift()!;
    if (a === '--help' || a === '-h') return { command: { name: 'help', topic: undefined }, url };
    if (a === '--version' || a === '-V') return { command: { name: 'version' }, url };
    if (a === '--url') {
      url = args.shift();
      if (url === undefined) throw usageError('--url needs a value');
    } else if (a.startsWith('--url=')) url = a.slice('--url='.length);
    else throw usageError(`unknown option ${a} before the command`);
  }
  const name = args.shift();
  if (name === undefined) return { command: { name: 'help', topic: undefined }, url };
  if (!isCommandName(name)) throw usageError(`unknown command "${name}"`);
  if (name === 'help') {
    const topic = args[0];
    if (topic !== undefined && !isCommandName(topic)) throw usageError(`no help for "${topic}": not a command`);
    return { command: { name: 'help', topic }, url };
  }
  const spec = SPECS[name];
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: { ...COMMON, ...spec.options }, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (err) {
    // node:util's messages name the option ("Unknown option '--x'"); its hint about `--` is noise here.
    throw usageError(`${name}: ${(err as Error).message.split('. To specify')[0]!.replace(/\.$/, '')}`, `see \`cutroom help ${name}\``);
  }
  const v = parsed.values;
  if (v.help) return { command: { name: 'help', topic: name }, url };
  const p = parsed.positionals;
  const required = spec.positionals.filter((x) => !x.endsWith('?'));
  if (p.length < required.length) throw usageError(`${name}: missing <${required[p.length]}>`, `usage: ${usageLine(name)}`);
  if (p.length > spec.positionals.length) throw usageError(`${name}: unexpected argument "${p[spec.positionals.length]}"`, `usage: ${usageLine(name)}`);
  url = (v.url as string | undefined) ?? url;
  return { command: build(name, v, p), url };
}

function build(name: Exclude<CommandName, 'help'>, v: Record<string, string | boolean | undefined>, p: string[]): Command {
  const str = (k: string) => v[k] as string | undefined;
  const upload = (): UploadOptions => ({
    file: p[0]!,
    outDir: str('out'),
    language: language(str('language')),
    contentType: str('content-type'),
    limitRate: rate(str('limit-rate')),
  });
  switch (name) {
    case 'transcribe':
      return { name, ...upload(), format: transcriptFormat(str('format')) ?? 'srt' };
    case 'summarize':
      return { name, ...upload() };
    case 'clips': {
      const query = str('query');
      if (query !== undefined && (query.trim().length === 0 || query.length > 500)) throw usageError('clips: --query takes 1-500 characters');
      return { name, ...upload(), query };
    }
    case 'cut': {
      const start = seconds('--start', str('start'));
      const end = seconds('--end', str('end'));
      if (end <= start) throw usageError(`cut: --end (${end}) must be after --start (${start})`);
      const vertical = v.vertical === true;
      const profile = str('profile');
      if (profile !== undefined && !vertical) throw usageError('cut: --profile applies to --vertical cuts only');
      if (profile !== undefined && !(PROFILES as readonly string[]).includes(profile)) throw usageError(`cut: --profile must be one of ${PROFILES.join(', ')}`);
      const aspect = str('aspect');
      if (aspect !== undefined && !vertical) throw usageError('cut: --aspect applies to --vertical cuts only');
      if (aspect !== undefined && !(ASPECTS as readonly string[]).includes(aspect)) throw usageError(`cut: --aspect must be one of ${ASPECTS.join(', ')}`);
      return { name, job: p[0]!, start, end, vertical, profile, ...(aspect !== undefined && { aspect }), outDir: str('out') };
    }
    case 'status':
      return { name, job: p[0]!, json: v.json === true };
    case 'jobs': {
      const status = str('status');
      if (status !== undefined && !(JOB_STATUSES as readonly string[]).includes(status))
        throw usageError(`jobs: --status must be one of ${JOB_STATUSES.join(', ')}`);
      const type = str('type');
      if (type !== undefined && !/^[a-z_]{1,40}$/.test(type)) throw usageError(`jobs: --type takes a job type like transcribe or extract_clip, got "${type}"`);
      const limit = str('limit') === undefined ? 20 : Number(str('limit'));
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw usageError(`jobs: --limit takes 1-100, got "${str('limit')}"`);
      return { name, status, type, source: str('source'), limit, all: v.all === true, json: v.json === true };
    }
    case 'download':
      return { name, job: p[0]!, role: str('role'), format: transcriptFormat(str('format')), outDir: str('out') };
    case 'resume':
      return { name, job: p[0], limitRate: rate(str('limit-rate')) };
  }
}

function transcriptFormat(s: string | undefined): TranscriptFormat | undefined {
  if (s === undefined) return undefined;
  if (!(TRANSCRIPT_FORMATS as readonly string[]).includes(s)) throw usageError(`--format must be one of ${TRANSCRIPT_FORMATS.join(', ')} (got "${s}")`);
  return s as TranscriptFormat;
}

function seconds(flag: string, s: string | undefined): number {
  if (s === undefined) throw usageError(`cut: ${flag} <seconds> is required`, `usage: ${usageLine('cut')}`);
  const n = parseClock(s);
  if (n === null) throw usageError(`cut: ${flag} takes seconds (12.5) or a clock time (1:05.5, 1:02:05), got "${s}"`);
  return n;
}

function rate(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const n = parseSize(s);
  if (n === null) throw usageError(`--limit-rate takes bytes per second like 500K or 2M, got "${s}"`);
  return n;
}

function language(s: string | undefined): string | undefined {
  if (s !== undefined && !/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/.test(s)) throw usageError(`--language takes a language code like en or pt-BR, got "${s}"`);
  return s;
}

/** One usage line per command (also the head of its help). */
export function usageLine(name: CommandName): string {
  const lines: Record<CommandName, string> = {
    transcribe: 'cutroom transcribe <file> [--format srt|vtt|txt|json|words] [-o dir] [--language xx] [--limit-rate 2M]',
    summarize: 'cutroom summarize <file> [-o dir] [--language xx] [--limit-rate 2M]',
    clips: 'cutroom clips <file> [--query "text"] [-o dir] [--language xx] [--limit-rate 2M]',
    cut: 'cutroom cut <job> --start <s> --end <s> [--vertical [--profile name] [--aspect 9:16|4:5|1:1]] [-o dir]',
    status: 'cutroom status <job> [--json]',
    jobs: 'cutroom jobs [--status s] [--type t] [--source job] [--limit n] [--all] [--json]',
    download: 'cutroom download <job> [--role name] [--format srt|vtt|txt|json|words] [-o dir]',
    resume: 'cutroom resume [<job>] [--limit-rate 2M]',
    help: 'cutroom help [<command>]',
  };
  return lines[name];
}
