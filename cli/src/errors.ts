/** Exit codes of `cutroom` (README "Exit codes"; `cutroom help` prints them). */
export const EXIT = {
  ok: 0,
  /** The job failed (refunded by the service) or was deleted / expired. */
  jobFailed: 1,
  /** Bad arguments, a missing or unreadable file, bad settings. */
  usage: 2,
  /** The job was not paid: no wallet and the checkout was not completed in time, or the payment was refused. */
  payment: 3,
  /** The service refused a call or could not be reached. */
  service: 4,
  /** Ctrl-C. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error meant for the user: printed as one message (never a stack trace), then the process exits with `code`. */
export class CliError extends Error {
  readonly code: ExitCode;
  /** A second line: what to do next. */
  readonly hint: string | undefined;
  /** The HTTP status of the refused call, when the service refused one. */
  readonly httpStatus: number | undefined;
  constructor(code: ExitCode, message: string, hint?: string, httpStatus?: number) {
    super(message);
    this.name = 'CliError';
    this.code = code;
    this.hint = hint;
    this.httpStatus = httpStatus;
  }
}

export const usageError = (message: string, hint?: string): CliError => new CliError(EXIT.usage, message, hint ?? 'see `cutroom help`');
