import { describe, expect, it } from 'vitest';
import { SseParser } from './sse.ts';

describe('SseParser', () => {
  it('parses the coordinator frames: retry, status with id, progress without, end', () => {
    const p = new SseParser();
    const text =
      'retry: 2000\n\n' +
      'id: 7\nevent: status\ndata: {"type":"status","id":"7","status":"transcribing"}\n\n' +
      ': keep-alive\n\n' +
      'event: progress\ndata: {"type":"progress","stage":"transcribing","fraction":0.5}\n\n' +
      'event: end\ndata: {"type":"end","status":"completed"}\n\n';
    const events = p.feed(text);
    expect(events.map((e) => [e.event, e.lastEventId, JSON.parse(e.data).type])).toEqual([
      ['status', '7', 'status'],
      ['progress', '7', 'progress'],
      ['end', '7', 'end'],
    ]);
    expect(p.retryMs).toBe(2000);
    expect(p.lastEventId).toBe('7');
  });

  it('reassembles events split anywhere, including between CR and LF', () => {
    const text = 'id: 12\r\nevent: status\r\ndata: {"a":1}\r\n\r\nevent: progress\rdata: x\r\r';
    for (let cut = 1; cut < text.length; cut++) {
      const p = new SseParser();
      const events = [...p.feed(text.slice(0, cut)), ...p.feed(text.slice(cut))];
      expect(events, `cut at ${cut}`).toEqual([
        { event: 'status', data: '{"a":1}', lastEventId: '12' },
        { event: 'progress', data: 'x', lastEventId: '12' },
      ]);
    }
  });

  it('joins multi-line data, defaults the event name, ignores events without data and unknown fields', () => {
    const p = new SseParser('3');
    expect(p.feed('data: one\ndata:two\nfoo: bar\n\nevent: lonely\n\nid: 4\n\ndata\n\n')).toEqual([
      { event: 'message', data: 'one\ntwo', lastEventId: '3' },
      { event: 'message', data: '', lastEventId: '4' },
    ]);
  });

  it('keeps an incomplete event until its blank line', () => {
    const p = new SseParser();
    expect(p.feed('event: status\ndata: {"x":1}\n')).toEqual([]);
    expect(p.feed('\n')).toHaveLength(1);
  });
});
