import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './args.ts';
import { CliError, EXIT } from './errors.ts';

const usage = (argv: string[]): string => {
  try {
    parseCommandLine(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).code).toBe(EXIT.usage);
    return (err as CliError).message;
  }
  throw new Error(`parsed: ${argv.join(' ')}`);
};

describe('parseCommandLine', () => {
  it('reads transcribe with its defaults and options', () => {
    expect(parseCommandLine(['transcribe', 'talk.mp4']).command).toEqual({
      name: 'transcribe',
      file: 'talk.mp4',
      format: 'srt',
      outDir: undefined,
      language: undefined,
      contentType: undefined,
      limitRate: undefined,
    });
    const c = parseCommandLine(['transcribe', '--format=vtt', 'talk.mp4', '-o', 'out', '--limit-rate', '256K', '--language', 'pt-BR']).command;
    expect(c).toMatchObject({ name: 'transcribe', file: 'talk.mp4', format: 'vtt', outDir: 'out', limitRate: 256 * 1024, language: 'pt-BR' });
  });

  it('takes --url before or after the command; the one after wins', () => {
    expect(parseCommandLine(['--url', 'http://a:1', 'status', 'abcd1234']).url).toBe('http://a:1');
    expect(parseCommandLine(['--url=http://a:1', 'status', 'abcd1234', '--url', 'http://b:2']).url).toBe('http://b:2');
  });

  it('reads cut windows in seconds or clock times, horizontal or vertical', () => {
    expect(parseCommandLine(['cut', 'abcd1234', '--start', '12.5', '--end', '30']).command).toEqual({
      name: 'cut',
      job: 'abcd1234',
      start: 12.5,
      end: 30,
      vertical: false,
      profile: undefined,
      outDir: undefined,
    });
    expect(parseCommandLine(['cut', 'abcd1234', '--start', '1:05.5', '--end', '1:02:05', '--vertical', '--profile', 'vidB-reels']).command).toMatchObject({
      start: 65.5,
      end: 3725,
      vertical: true,
      profile: 'vidB-reels',
    });
    expect(parseCommandLine(['cut', 'abcd1234', '--start', '1', '--end', '9', '--vertical', '--aspect', '4:5']).command).toMatchObject({
      vertical: true,
      aspect: '4:5',
    });
  });

  it('refuses bad cut windows', () => {
    expect(usage(['cut', 'abcd1234', '--start', '5'])).toMatch(/--end <seconds> is required/);
    expect(usage(['cut', 'abcd1234', '--start', '30', '--end', '12'])).toMatch(/must be after --start/);
    expect(usage(['cut', 'abcd1234', '--start', '-1', '--end', '12'])).toMatch(/start/);
    expect(usage(['cut', 'abcd1234', '--start', '1:75', '--end', '2:00'])).toMatch(/clock time/);
    expect(usage(['cut', 'abcd1234', '--start', '1', '--end', '2', '--profile', 'vidB-reels'])).toMatch(/--vertical cuts only/);
    expect(usage(['cut', 'abcd1234', '--start', '1', '--end', '2', '--vertical', '--profile', 'square'])).toMatch(/one of vidA-primary/);
    expect(usage(['cut', 'abcd1234', '--start', '1', '--end', '2', '--aspect', '1:1'])).toMatch(/--aspect applies to --vertical cuts only/);
    expect(usage(['cut', 'abcd1234', '--start', '1', '--end', '2', '--vertical', '--aspect', '3:2'])).toMatch(/one of 9:16, 4:5, 1:1/);
  });

  it('reads jobs with its filters, and refuses bad ones', () => {
    expect(parseCommandLine(['jobs']).command).toEqual({
      name: 'jobs',
      status: undefined,
      type: undefined,
      source: undefined,
      limit: 20,
      all: false,
      json: false,
    });
    expect(
      parseCommandLine(['jobs', '--status', 'failed', '--type', 'extract_clip', '--source', 'abcd1234', '--limit', '5', '--all', '--json']).command,
    ).toEqual({
      name: 'jobs',
      status: 'failed',
      type: 'extract_clip',
      source: 'abcd1234',
      limit: 5,
      all: true,
      json: true,
    });
    expect(usage(['jobs', '--status', 'done'])).toMatch(/--status must be one of pending/);
    expect(usage(['jobs', '--limit', '0'])).toMatch(/--limit takes 1-100/);
    expect(usage(['jobs', '--limit', '101'])).toMatch(/--limit takes 1-100/);
    expect(usage(['jobs', '--type', 'Drop Table'])).toMatch(/--type takes a job type/);
    expect(usage(['jobs', 'extra'])).toMatch(/unexpected argument "extra"/);
  });

  it('gives help for the whole tool and per command', () => {
    expect(parseCommandLine([]).command).toEqual({ name: 'help', topic: undefined });
    expect(parseCommandLine(['--help']).command).toEqual({ name: 'help', topic: undefined });
    expect(parseCommandLine(['help', 'cut']).command).toEqual({ name: 'help', topic: 'cut' });
    expect(parseCommandLine(['transcribe', '--help']).command).toEqual({ name: 'help', topic: 'transcribe' });
    expect(parseCommandLine(['download', 'x', '-h']).command).toEqual({ name: 'help', topic: 'download' });
    expect(parseCommandLine(['--version']).command).toEqual({ name: 'version' });
  });

  it('refuses unknown commands, options, formats and missing or extra arguments', () => {
    expect(usage(['transcode', 'a.mp4'])).toMatch(/unknown command "transcode"/);
    expect(usage(['transcribe', 'a.mp4', '--bogus'])).toMatch(/Unknown option '--bogus'/);
    expect(usage(['transcribe'])).toMatch(/missing <file>/);
    expect(usage(['transcribe', 'a.mp4', 'b.mp4'])).toMatch(/unexpected argument "b.mp4"/);
    expect(usage(['transcribe', 'a.mp4', '--format', 'docx'])).toMatch(/--format must be one of srt, vtt/);
    expect(usage(['transcribe', 'a.mp4', '--limit-rate', 'fast'])).toMatch(/--limit-rate/);
    expect(usage(['transcribe', 'a.mp4', '--language', 'english!'])).toMatch(/--language/);
    expect(usage(['clips', 'a.mp4', '--query', '   '])).toMatch(/1-500 characters/);
    expect(usage(['help', 'nothing'])).toMatch(/not a command/);
    expect(usage(['--colour', 'status', 'x'])).toMatch(/unknown option --colour/);
  });

  it('reads status, download and resume', () => {
    expect(parseCommandLine(['status', 'abcd1234', '--json']).command).toEqual({ name: 'status', job: 'abcd1234', json: true });
    expect(parseCommandLine(['download', 'abcd1234', '--role', 'transcript', '-f', 'words', '-o', 'd']).command).toEqual({
      name: 'download',
      job: 'abcd1234',
      role: 'transcript',
      format: 'words',
      outDir: 'd',
    });
    expect(parseCommandLine(['resume']).command).toEqual({ name: 'resume', job: undefined, limitRate: undefined });
    expect(parseCommandLine(['resume', 'abcd', '--limit-rate', '1M']).command).toEqual({ name: 'resume', job: 'abcd', limitRate: 1024 * 1024 });
  });
});
