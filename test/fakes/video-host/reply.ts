// A handler returns a plain value (sent as 200 JSON) or a Reply for anything else: another
// status, headers (Location, Range), an HTML page, Google's text/plain upload errors, or nothing
// at all (`none`: the socket is already gone).
export class Reply {
  readonly status: number;
  readonly json: unknown;
  readonly html: string | undefined;
  readonly text: string | undefined;
  readonly headers: Record<string, string>;
  readonly none: boolean;
  constructor(init: { status: number; json?: unknown; html?: string; text?: string; headers?: Record<string, string>; none?: boolean }) {
    this.status = init.status;
    this.json = init.json;
    this.html = init.html;
    this.text = init.text;
    this.headers = init.headers ?? {};
    this.none = init.none ?? false;
  }
}
