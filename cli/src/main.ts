import { readFileSync } from 'node:fs';
import { Api } from './api-client.ts';
import { parseCommandLine } from './args.ts';
import { clipsCommand } from './commands/clips.ts';
import { cutCommand } from './commands/cut.ts';
import { downloadCommand } from './commands/download.ts';
import { jobsCommand } from './commands/jobs.ts';
import { resumeCommand } from './commands/resume.ts';
import { statusCommand } from './commands/status.ts';
import { summarizeCommand } from './commands/summarize.ts';
import { transcribeCommand } from './commands/transcribe.ts';
import { loadSettings } from './config.ts';
import type { Ctx } from './context.ts';
import { CliError, EXIT } from './errors.ts';
import { helpText } from './help.ts';
import { createUi } from './progress.ts';
import { SessionStore } from './session.ts';
import { JobBook } from './state.ts';

/** Runs one command line; returns the exit code (errors meant for the user are printed, never thrown). */
export async function main(argv: string[]): Promise<number> {
  let ctx: Ctx | undefined;
  try {
    const { command, url } = parseCommandLine(argv);
    if (command.name === 'help') {
      process.stdout.write(`${helpText(command.topic)}\n`);
      return EXIT.ok;
    }
    if (command.name === 'version') {
      const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
      process.stdout.write(`cutroom ${pkg.version}\n`);
      return EXIT.ok;
    }
    const settings = loadSettings(process.env, url, Boolean(process.stdout.isTTY && process.stderr.isTTY));
    ctx = {
      settings,
      api: new Api(settings.baseUrl, new SessionStore(settings.configDir)),
      ui: createUi(settings.progress),
      book: new JobBook(settings.configDir),
      out: (line) => process.stdout.write(`${line}\n`),
      current: {},
    };
    onInterrupt(ctx);
    switch (command.name) {
      case 'transcribe':
        await transcribeCommand(ctx, command);
        return EXIT.ok;
      case 'summarize':
        await summarizeCommand(ctx, command);
        return EXIT.ok;
      case 'clips':
        await clipsCommand(ctx, command);
        return EXIT.ok;
      case 'cut':
        await cutCommand(ctx, command);
        return EXIT.ok;
      case 'status':
        return await statusCommand(ctx, command);
      case 'jobs':
        await jobsCommand(ctx, command);
        return EXIT.ok;
      case 'download':
        await downloadCommand(ctx, command);
        return EXIT.ok;
      case 'resume':
        await resumeCommand(ctx, command);
        return EXIT.ok;
    }
  } catch (err) {
    ctx?.ui.stopAll();
    return report(err);
  }
}

/** One message on stderr, no stack trace (CUTROOM_DEBUG=1 shows it for unexpected errors). */
function report(err: unknown): number {
  if (err instanceof CliError) {
    process.stderr.write(`cutroom: ${err.message}\n${err.hint ? `  ${err.hint}\n` : ''}`);
    return err.code;
  }
  const e = err as Error;
  process.stderr.write(`cutroom: unexpected error: ${e?.message ?? String(err)}\n`);
  if (process.env.CUTROOM_DEBUG) process.stderr.write(`${e?.stack ?? ''}\n`);
  else process.stderr.write('  set CUTROOM_DEBUG=1 to see where it happened\n');
  return EXIT.service;
}

/** Ctrl-C: stop the bars, say which job is kept and how to continue it, exit 130. */
function onInterrupt(ctx: Ctx): void {
  const handler = () => {
    ctx.ui.stopAll();
    const { jobId, phase } = ctx.current;
    let hint = '';
    if (jobId && phase === 'processing') {
      hint = `job ${jobId} keeps running; \`cutroom download ${jobId.slice(0, 8)}\` (or the same command) fetches its outputs`;
    } else if (jobId) {
      hint = `job ${jobId} is kept; the same command (or \`cutroom resume ${jobId.slice(0, 8)}\`) continues it`;
    }
    process.stderr.write(`\ncutroom: interrupted${phase ? ` during ${phase}` : ''}\n${hint ? `  ${hint}\n` : ''}`);
    process.exit(EXIT.interrupted);
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
}

process.exitCode = await main(process.argv.slice(2));
