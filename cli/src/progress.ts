import cliProgress from 'cli-progress';
import type { ProgressMode } from './config.ts';
import { formatBytes, formatDuration, formatRate, RateMeter } from './format.ts';

/** Bytes sent so far, drawn as a bar with rate and ETA (or plain lines). */
export interface UploadProgress {
  update(bytes: number): void;
  finish(): void;
  stop(): void;
}

/** The job's stage and the fraction of it done, from the event stream or polling. */
export interface ProcessProgress {
  stage(stage: string, fraction?: number): void;
  finish(status: string): void;
  stop(): void;
}

export interface Spinner {
  stop(finalLine?: string): void;
}

/**
 * What the user sees while a command runs, on stderr (stdout carries the results: paths,
 * candidates). `bars` redraws cli-progress bars on a terminal; `plain` prints one line per
 * notable change, so a log stays readable; `none` prints only messages.
 */
export interface Ui {
  info(line: string): void;
  upload(total: number): UploadProgress;
  processing(): ProcessProgress;
  spinner(text: string): Spinner;
  /** Stops whatever is drawing (Ctrl-C, an error). */
  stopAll(): void;
}

const label = (stage: string): string => stage.replaceAll('_', ' ');
const STAGE_WIDTH = 16;

export function createUi(mode: ProgressMode, stream: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): Ui {
  return mode === 'bars' ? new BarsUi(stream, now) : new LinesUi(stream, now, mode === 'none');
}

/** Upload numbers shared by both renderings. */
function uploadFigures(meter: RateMeter, total: number, bytes: number) {
  return { done: formatBytes(bytes), size: formatBytes(total), rate: formatRate(meter.rate()), left: formatDuration(meter.eta(total)) };
}

class BarsUi implements Ui {
  private readonly stream: NodeJS.WriteStream;
  private readonly now: () => number;
  private active: { stop(): void } | null = null;
  constructor(stream: NodeJS.WriteStream, now: () => number) {
    this.stream = stream;
    this.now = now;
  }

  info(line: string): void {
    this.stream.write(`${line}\n`);
  }

  private bar(format: string): cliProgress.SingleBar {
    return new cliProgress.SingleBar({
      stream: this.stream,
      format,
      barsize: 30,
      barCompleteChar: '\u2588',
      barIncompleteChar: '\u2591',
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      fps: 8,
    });
  }

  upload(total: number): UploadProgress {
    const bar = this.bar(`${'upload'.padEnd(STAGE_WIDTH)} {bar} {percentage}% | {done} / {size} | {rate} | ETA {left}`);
    const meter = new RateMeter();
    const started = this.now();
    meter.add(started, 0);
    bar.start(total, 0, uploadFigures(meter, total, 0));
    let stopped = false;
    const stop = () => {
      if (!stopped) bar.stop();
      stopped = true;
      this.active = null;
    };
    this.active = { stop };
    return {
      update: (bytes) => {
        meter.add(this.now(), bytes);
        bar.update(bytes, uploadFigures(meter, total, bytes));
      },
      finish: () => {
        const secs = Math.max(0.001, (this.now() - started) / 1000);
        bar.update(total, { done: formatBytes(total), size: formatBytes(total), rate: formatRate(total / secs), left: '0s' });
        stop();
      },
      stop,
    };
  }

  processing(): ProcessProgress {
    const bar = this.bar('{stage} {bar} {percentage}%');
    bar.start(100, 0, { stage: label('queued').padEnd(STAGE_WIDTH) });
    let stopped = false;
    const stop = () => {
      if (!stopped) bar.stop();
      stopped = true;
      this.active = null;
    };
    this.active = { stop };
    return {
      stage: (stage, fraction = 0) => bar.update(Math.round(fraction * 100), { stage: label(stage).padEnd(STAGE_WIDTH) }),
      finish: (status) => {
        if (status === 'completed') bar.update(100, { stage: label(status).padEnd(STAGE_WIDTH) });
        else bar.update({ stage: label(status).padEnd(STAGE_WIDTH) });
        stop();
      },
      stop,
    };
  }

  spinner(text: string): Spinner {
    const frames = ['\u280b', '\u2819', '\u2839', '\u2838', '\u283c', '\u2834', '\u2826', '\u2827', '\u2807', '\u280f'];
    const started = this.now();
    let i = 0;
    const draw = () => this.stream.write(`\r\x1b[2K${frames[i++ % frames.length]} ${text} ${formatDuration((this.now() - started) / 1000)}`);
    draw();
    const timer = setInterval(draw, 120);
    const stop = (finalLine?: string) => {
      clearInterval(timer);
      this.stream.write(`\r\x1b[2K${finalLine ? `${finalLine}\n` : ''}`);
      this.active = null;
    };
    this.active = { stop: () => stop() };
    return { stop };
  }

  stopAll(): void {
    this.active?.stop();
  }
}

/** One line per notable change: a new stage, every 10% (at most every 2 s; or 10 s without one), the end. */
class LinesUi implements Ui {
  private readonly stream: NodeJS.WriteStream;
  private readonly now: () => number;
  private readonly quiet: boolean;
  private stopActive: (() => void) | null = null;
  constructor(stream: NodeJS.WriteStream, now: () => number, quiet: boolean) {
    this.stream = stream;
    this.now = now;
    this.quiet = quiet;
  }

  info(line: string): void {
    this.stream.write(`${line}\n`);
  }

  private progressLine(line: string): void {
    if (!this.quiet) this.stream.write(`${line}\n`);
  }

  upload(total: number): UploadProgress {
    const meter = new RateMeter();
    const started = this.now();
    meter.add(started, 0);
    let lastStep = 0;
    let lastAt = started;
    this.progressLine(`upload: 0% of ${formatBytes(total)}`);
    return {
      update: (bytes) => {
        const t = this.now();
        meter.add(t, bytes);
        const step = Math.floor((bytes / total) * 10);
        if ((step > lastStep && t - lastAt >= 2000) || t - lastAt >= 10_000) {
          if (bytes >= total) return; // finish() says 100%
          lastStep = step;
          lastAt = t;
          const f = uploadFigures(meter, total, bytes);
          this.progressLine(`upload: ${Math.floor((bytes / total) * 100)}% ${f.done} / ${f.size} ${f.rate} ETA ${f.left}`);
        }
      },
      finish: () => {
        const secs = (this.now() - started) / 1000;
        this.progressLine(`upload: 100% ${formatBytes(total)} in ${formatDuration(secs)} (${formatRate(total / Math.max(secs, 0.001))})`);
      },
      stop: () => {},
    };
  }

  processing(): ProcessProgress {
    let current = '';
    let lastStep = -1;
    let lastAt = 0;
    return {
      stage: (stage, fraction = 0) => {
        const t = this.now();
        const step = Math.floor(fraction * 10);
        if (stage !== current) {
          current = stage;
          lastStep = step;
          lastAt = t;
          this.progressLine(`processing: ${label(stage)}${fraction > 0 ? ` ${Math.round(fraction * 100)}%` : ''}`);
        } else if ((step > lastStep && t - lastAt >= 2000) || (fraction > 0 && t - lastAt >= 10_000 && step !== lastStep)) {
          lastStep = step;
          lastAt = t;
          this.progressLine(`processing: ${label(stage)} ${Math.round(fraction * 100)}%`);
        }
      },
      finish: (status) => this.progressLine(`processing: ${label(status)}${status === 'completed' ? ' 100%' : ''}`),
      stop: () => {},
    };
  }

  spinner(text: string): Spinner {
    const started = this.now();
    this.info(text);
    const timer = setInterval(() => this.info(`  still waiting (${formatDuration((this.now() - started) / 1000)})`), 30_000);
    const stop = (finalLine?: string) => {
      clearInterval(timer);
      if (finalLine) this.info(finalLine);
      this.stopActive = null;
    };
    this.stopActive = () => stop();
    return { stop };
  }

  stopAll(): void {
    this.stopActive?.();
  }
}
