import type { JsMsg } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import type { WorkKind } from '@cutroom/proto';
import { pullAny } from './pull-any.ts';

/** A consumer whose pulls the test answers by hand, and messages that record their nak. */
function fakeConsumer() {
  const pending: { resolve: (m: JsMsg | null) => void; reject: (e: Error) => void }[] = [];
  return {
    pulls: () => pending.length,
    next: () => new Promise<JsMsg | null>((resolve, reject) => pending.push({ resolve, reject })),
    deliver: (m: JsMsg | null, i = pending.length - 1) => pending[i]!.resolve(m),
    fail: (e: Error, i = pending.length - 1) => pending[i]!.reject(e),
  };
}
const message = (id: string) => {
  const m = { id, naks: 0, nak() {} };
  m.nak = () => void m.naks++;
  return m as unknown as JsMsg & { id: string; naks: number };
};
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('pullAny', () => {
  it('pulls every kind at once and answers the first wake-up; a later one is nak’ed at once', async () => {
    const cut = fakeConsumer();
    const transcribe = fakeConsumer();
    const consumers = new Map<WorkKind, ReturnType<typeof fakeConsumer>>([
      ['transcribe', transcribe],
      ['cut', cut],
    ]);
    const pending = pullAny(consumers, new AbortController().signal, 5000);
    expect([transcribe.pulls(), cut.pulls()]).toEqual([1, 1]);
    const first = message('cut-1');
    cut.deliver(first);
    const got = await pending;
    expect(got).toMatchObject({ kind: 'cut', failed: [] });
    expect(got.msg).toBe(first);
    const late = message('transcribe-1');
    transcribe.deliver(late);
    await tick();
    expect([first.naks, late.naks]).toEqual([0, 1]);
  });

  it('answers null once every pull expired empty', async () => {
    const a = fakeConsumer();
    const b = fakeConsumer();
    const pending = pullAny(
      new Map<WorkKind, ReturnType<typeof fakeConsumer>>([
        ['transcribe', a],
        ['understand', b],
      ]),
      new AbortController().signal,
      5000,
    );
    a.deliver(null);
    await tick();
    let answered = false;
    void pending.then(() => (answered = true));
    await tick();
    expect(answered).toBe(false);
    b.deliver(null);
    expect(await pending).toEqual({ msg: null, kind: null, failed: [] });
  });

  it('answers at once when a pull fails, naming the kind to rebind', async () => {
    const a = fakeConsumer();
    const b = fakeConsumer();
    const pending = pullAny(
      new Map<WorkKind, ReturnType<typeof fakeConsumer>>([
        ['transcribe', a],
        ['cut', b],
      ]),
      new AbortController().signal,
      5000,
    );
    b.fail(new Error('consumer not found'));
    const got = await pending;
    expect(got.msg).toBeNull();
    expect(got.failed.map((f) => [f.kind, f.err.message])).toEqual([['cut', 'consumer not found']]);
    const late = message('t');
    a.deliver(late);
    await tick();
    expect(late.naks).toBe(1);
  });

  it('answers null on stop and naks what the open pulls bring afterwards', async () => {
    const a = fakeConsumer();
    const stop = new AbortController();
    const pending = pullAny(new Map<WorkKind, ReturnType<typeof fakeConsumer>>([['transcribe', a]]), stop.signal, 5000);
    stop.abort();
    expect((await pending).msg).toBeNull();
    const late = message('t');
    a.deliver(late);
    await tick();
    expect(late.naks).toBe(1);
  });
});
