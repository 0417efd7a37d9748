import type { Consumer, JsMsg } from '@nats-io/jetstream';
import type { WorkKind } from '@cutroom/proto';

export interface PullAnyResult {
  /** the wake-up to handle, or null (every pull expired empty, one failed, or the agent stops) */
  msg: JsMsg | null;
  kind: WorkKind | null;
  /** the pull that failed, when one did (the consumer may have been deleted: rebind it) */
  failed: { kind: WorkKind; err: Error }[];
}

/**
 * One pull per work kind, all open at once, answering the first wake-up. nats-server 2.9 allows
 * one filter subject per consumer, so an agent serving several kinds holds one consumer per kind;
 * pulling them in turn made a wake-up wait for the other kinds' empty pulls, and left an agent with
 * a backlog idle between two jobs. A wake-up that another of these pulls brings in after the first
 * (or after stop) is nak'ed at once: the next free agent takes it (or this one, after its job).
 */
export function pullAny(consumers: ReadonlyMap<WorkKind, Pick<Consumer, 'next'>>, stopSignal: AbortSignal, expiresMs: number): Promise<PullAnyResult> {
  const failed: PullAnyResult['failed'] = [];
  if (stopSignal.aborted || consumers.size === 0) return Promise.resolve({ msg: null, kind: null, failed });
  return new Promise((resolve) => {
    let settled = false;
    let open = consumers.size;
    const onAbort = () => finish(null, null);
    const finish = (msg: JsMsg | null, kind: WorkKind | null) => {
      if (settled) {
        msg?.nak();
        return;
      }
      settled = true;
      stopSignal.removeEventListener('abort', onAbort);
      resolve({ msg, kind, failed: [...failed] });
    };
    stopSignal.addEventListener('abort', onAbort, { once: true });
    for (const [kind, consumer] of consumers) {
      consumer.next({ expires: expiresMs }).then(
        (msg) => {
          open--;
          if (msg && stopSignal.aborted) msg.nak();
          else if (msg) finish(msg, kind);
          else if (open === 0) finish(null, null);
        },
        (err: unknown) => {
          open--;
          // Answer at once: the caller rebinds that kind (the others' pulls, still open, nak what they bring).
          failed.push({ kind, err: err instanceof Error ? err : new Error(String(err)) });
          finish(null, null);
        },
      );
    }
  });
}
