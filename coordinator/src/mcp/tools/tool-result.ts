/**
 * What a tool handler returns: the value (the tool's structured result, also shown as JSON text),
 * the payment receipt headers when the call paid, and optionally a text to show instead of the
 * JSON (a transcript is read as text).
 */
export interface ToolResult {
  value: Record<string, unknown>;
  receipt?: Record<string, string>;
  text?: string;
}

/** The next step an agent should take, in words that name tools (never REST routes). */
export const NEXT = {
  upload: 'PUT the file bytes to upload_url (with the same Content-Type header), then call complete_upload with job_id',
  wait: 'call get_job_status with job_id and wait_seconds (e.g. 120) until status is completed; outputs carry download links',
  /** After a -32042 of an upload job: the two ways to pay, and what follows the hosted checkout. */
  payUpload:
    'pay by repeating this call with the credential in params._meta["org.paymentauth/credential"], or pay at checkout_url (hosted card checkout) and then call get_upload_url with job_id and session_token',
  /** After a -32042 of a cut or bundle: it starts as soon as it is paid, so after the checkout the next call is the poll. */
  payStart:
    'pay by repeating this call with the credential in params._meta["org.paymentauth/credential"], or pay at checkout_url (hosted card checkout): the job starts once paid; then call get_job_status with job_id and session_token (do not repeat this call: it would create another job)',
} as const;
