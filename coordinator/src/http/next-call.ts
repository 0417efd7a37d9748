import type { AppError, NextCall } from '../lib/app-error.ts';

/** How REST names the call a service error suggests next. */
export function restRouteOf(next: { call: NextCall; jobId?: string }): string {
  const job = `/api/v1/jobs/${next.jobId ?? '{id}'}`;
  switch (next.call) {
    case 'create_session':
      return 'POST /api/v1/sessions';
    case 'upload_url':
      return `GET ${job}/upload-url`;
    case 'complete_upload':
      return `POST ${job}/complete-upload`;
    case 'process':
      return `POST ${job}/process`;
    case 'checkout':
      return `POST ${job}/checkout`;
  }
}

/** A service error as REST words it: the message, then the route to call next when it names one. */
export function restErrorMessage(err: AppError): string {
  return err.next ? `${err.message} (next: ${restRouteOf(err.next)})` : err.message;
}
