/** One dispatched server-sent event (WHATWG HTML "event stream interpretation"). */
export interface SseEvent {
  event: string;
  data: string;
  /** The last event id seen so far (it persists across events, as EventSource's lastEventId does). */
  lastEventId: string;
}

/**
 * An incremental text/event-stream parser: feed it decoded chunks as they arrive (a line or an
 * event may be split anywhere); it returns the events completed by each chunk. Handles CRLF, CR
 * and LF line ends, comments, multi-line data, `id:` (kept across events) and `retry:`.
 */
export class SseParser {
  lastEventId = '';
  /** The `retry:` reconnection delay in ms, when the server sent one. */
  retryMs: number | undefined;
  private buffer = '';
  private data: string[] = [];
  private event = '';
  /** A chunk ended with CR: a LF at the start of the next one belongs to it. */
  private pendingCr = false;

  constructor(lastEventId = '') {
    this.lastEventId = lastEventId;
  }

  feed(chunk: string): SseEvent[] {
    let text = chunk;
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      if (!m) break;
      // A lone CR at the very end may be the first half of CRLF.
      if (m[0] === '\r' && m.index === this.buffer.length - 1) this.pendingCr = true;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      const ev = this.line(line);
      if (ev) out.push(ev);
    }
    return out;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.lastEventId = value;
    } else if (field === 'retry') {
      if (/^\d+$/.test(value)) this.retryMs = Number(value);
    }
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const data = this.data;
    const event = this.event || 'message';
    this.data = [];
    this.event = '';
    if (data.length === 0) return undefined;
    return { event, data: data.join('\n'), lastEventId: this.lastEventId };
  }
}
