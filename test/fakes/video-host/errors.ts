// The two error shapes Google answers with. API calls (YouTube, upload front end):
//   {error: {code, message, errors: [{message, domain, reason, location?, locationType?}], status}}
// gaxios (the official clients' transport) builds its error message from errors[].message and
// exposes `status`/`code`/`errors`, so every entry carries a message. OAuth endpoints (token,
// revoke, tokeninfo) answer RFC 6749 errors instead: {error: 'invalid_grant', error_description}.

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

export interface GoogleErrorInit {
  status: number;
  reason: string;
  message: string;
  /** @default 'global' */
  domain?: string;
  /** the top-level message when it differs from the entry's (Google's 401s do this) */
  topMessage?: string;
  location?: string;
  locationType?: 'header' | 'parameter' | 'other';
  headers?: Record<string, string>;
}

export class GoogleApiError extends Error {
  override name = 'GoogleApiError';
  readonly status: number;
  readonly init: GoogleErrorInit;
  constructor(init: GoogleErrorInit) {
    super(init.message);
    this.status = init.status;
    this.init = init;
  }
  toBody() {
    const { status, reason, message, domain, topMessage, location, locationType } = this.init;
    return {
      error: {
        code: status,
        message: topMessage ?? message,
        errors: [{ message, domain: domain ?? 'global', reason, ...(location && { location, locationType: locationType ?? 'parameter' }) }],
        status: STATUS_NAMES[status] ?? 'UNKNOWN',
      },
    };
  }
}

export class OAuthError extends Error {
  override name = 'OAuthError';
  readonly status: number;
  readonly error: string;
  constructor(status: number, error: string, description: string) {
    super(description);
    this.status = status;
    this.error = error;
  }
  toBody() {
    return { error: this.error, error_description: this.message };
  }
}

export const badRequest = (reason: string, message: string, domain = 'youtube.parameter', location?: string): GoogleApiError =>
  new GoogleApiError({ status: 400, reason, message, domain, ...(location && { location, locationType: 'parameter' as const }) });

export const requiredParam = (name: string): GoogleApiError =>
  new GoogleApiError({ status: 400, reason: 'required', message: `Required parameter: ${name}`, location: name, locationType: 'parameter' });

export const notFound = (reason: string, message: string, domain = 'youtube.video'): GoogleApiError =>
  new GoogleApiError({ status: 404, reason, message, domain });

export const forbidden = (reason: string, message: string, domain = 'youtube.video'): GoogleApiError =>
  new GoogleApiError({ status: 403, reason, message, domain });

// Google's own texts for the injectable failures.
const FAULT_TEXT: Record<string, { message: string; domain: string }> = {
  backendError: { message: 'Backend Error', domain: 'global' },
  internalError: { message: 'Internal Error', domain: 'global' },
  rateLimitExceeded: { message: 'Rate Limit Exceeded', domain: 'usageLimits' },
  userRateLimitExceeded: { message: 'User Rate Limit Exceeded', domain: 'usageLimits' },
  quotaExceeded: { message: 'The request cannot be completed because you have exceeded your quota.', domain: 'youtube.quota' },
};

/** The error an injected fault answers with, e.g. (503, 'backendError') or (429, 'rateLimitExceeded'). */
export function faultError(status: number, reason: string): GoogleApiError {
  const text = FAULT_TEXT[reason] ?? { message: `Injected failure (${reason})`, domain: 'global' };
  const topMessage = status === 503 && reason === 'backendError' ? 'The service is currently unavailable.' : undefined;
  return new GoogleApiError({ status, reason, ...text, ...(topMessage && { topMessage }) });
}
