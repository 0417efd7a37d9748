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
} as const;
