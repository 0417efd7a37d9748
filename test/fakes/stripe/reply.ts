// A handler returns a plain value (sent as 200 JSON) or a Reply for anything else.
export class Reply {
  readonly status: number;
  readonly json: unknown;
  readonly html: string | undefined;
  readonly location: string | undefined;
  constructor(init: { status: number; json?: unknown; html?: string; location?: string }) {
    this.status = init.status;
    this.json = init.json;
    this.html = init.html;
    this.location = init.location;
  }
}
