import type { Api } from './api-client.ts';
import type { Settings } from './config.ts';
import type { Ui } from './progress.ts';
import type { JobBook } from './state.ts';

/** What every command works with. */
export interface Ctx {
  settings: Settings;
  api: Api;
  ui: Ui;
  book: JobBook;
  /** A result line on stdout (paths, candidates, listings). */
  out(line: string): void;
  /** The job being worked on, for the Ctrl-C message. */
  current: { jobId?: string; phase?: 'payment' | 'upload' | 'processing' | 'download' };
}
