// Stripe's Idempotency-Key semantics for POST requests: the first request with a key runs and
// its outcome is saved (successes and errors decided while executing, e.g. declines); a later
// request with the same key and the same method, path and parameters gets the saved response
// again with `Idempotent-Replayed: true`; the same key with anything different is a 400
// idempotency_error; the same key while the first request still runs is a 409.
// Keys never expire here (Stripe prunes them after 24 hours).
import { FakeStripeError } from './errors.ts';
import type { FormObject, FormValue } from './form-body.ts';

export interface SavedReply {
  status: number;
  body: unknown;
  requestId: string;
}

type Entry = { fingerprint: string; saved: SavedReply | null };

export type IdempotencyDecision = { kind: 'run' } | { kind: 'replay'; saved: SavedReply };

export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  /** Decides how to treat a request carrying `key`; throws Stripe's errors on misuse. */
  begin(key: string, method: string, path: string, params: FormObject): IdempotencyDecision {
    if (key.length > 255) {
      throw new FakeStripeError({
        status: 400,
        type: 'invalid_request_error',
        message: 'Idempotency-Key must be at most 255 characters long.',
        persist: false,
      });
    }
    const fingerprint = `${method} ${path} ${canonical(params)}`;
    const entry = this.entries.get(key);
    if (!entry) {
      this.entries.set(key, { fingerprint, saved: null });
      return { kind: 'run' };
    }
    if (entry.fingerprint !== fingerprint) {
      throw new FakeStripeError({
        status: 400,
        type: 'idempotency_error',
        message:
          'Keys for idempotent requests can only be used with the same parameters they were first used with. ' +
          `Try using a key other than '${key}' if you meant to execute a different request.`,
        persist: false,
      });
    }
    if (!entry.saved) {
      throw new FakeStripeError({
        status: 409,
        type: 'idempotency_error',
        message: `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`,
        persist: false,
      });
    }
    return { kind: 'replay', saved: entry.saved };
  }

  /** Saves the outcome of a request that ran, or forgets the key when it must not be saved. */
  finish(key: string, saved: SavedReply | null): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    if (saved) entry.saved = saved;
    else this.entries.delete(key);
  }
}

// Parameter order does not matter to Stripe; compare a key-sorted rendering.
function canonical(value: FormValue): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k] as FormValue)}`).join(',')}}`;
}
