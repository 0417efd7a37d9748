import os from 'node:os';
import { WORK_KINDS, type WorkKind } from '@cutroom/proto';

/**
 * How many jobs an agent runs at once, by work kind: the kinds use different resources (the
 * Whisper child, the text model, ffmpeg encodes), so a short transcribe need not wait for a long
 * summarize to end. `total` caps them together (a small host runs one job at a time).
 */
export interface Slots {
  perKind: Readonly<Record<WorkKind, number>>;
  total: number;
}

/** Below these a host runs one job at a time whatever it serves. */
export const CONCURRENT_HOST = { cores: 2, memoryBytes: 4 * 1024 ** 3 } as const;

/**
 * AGENT_SLOTS: unset → one job of each kind at once on a host with at least 2 cores and 4 GB,
 * else one job in all; `N` → N of each kind; `transcribe=1,understand=1,cut=2` → per kind (a kind
 * left out gets 1), with `total=N` to cap them together. Throws a message naming what is wrong.
 */
export function parseSlots(spec: string | undefined, host: { cores: number; memoryBytes: number } = hostSize()): Slots {
  const perKind = Object.fromEntries(WORK_KINDS.map((k) => [k, 1])) as Record<WorkKind, number>;
  const concurrent = host.cores >= CONCURRENT_HOST.cores && host.memoryBytes >= CONCURRENT_HOST.memoryBytes;
  if (spec === undefined || spec.trim() === '') return { perKind, total: concurrent ? WORK_KINDS.length : 1 };
  const count = (text: string, what: string) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1 || n > 64) throw new Error(`AGENT_SLOTS: ${what} must be a whole number from 1 to 64, not "${text}"`);
    return n;
  };
  if (/^\s*\d+\s*$/.test(spec)) {
    const n = count(spec.trim(), 'the number');
    return { perKind: Object.fromEntries(WORK_KINDS.map((k) => [k, n])) as Record<WorkKind, number>, total: n * WORK_KINDS.length };
  }
  let total: number | undefined;
  for (const part of spec.split(',')) {
    const [key = '', value = ''] = part.split('=').map((s) => s.trim());
    if (key === 'total') total = count(value, 'total');
    else if ((WORK_KINDS as readonly string[]).includes(key)) perKind[key as WorkKind] = count(value, key);
    else throw new Error(`AGENT_SLOTS: "${key}" is not a work kind (${WORK_KINDS.join(', ')}) nor total`);
  }
  return { perKind, total: total ?? Object.values(perKind).reduce((a, b) => a + b, 0) };
}

const hostSize = () => ({ cores: os.availableParallelism(), memoryBytes: os.totalmem() });

/** The kinds with a free slot, given how many jobs of each kind run now. */
export function freeKinds(slots: Slots, running: ReadonlyMap<WorkKind, number>, kinds: readonly WorkKind[]): WorkKind[] {
  const busy = [...running.values()].reduce((a, b) => a + b, 0);
  if (busy >= slots.total) return [];
  return kinds.filter((k) => (running.get(k) ?? 0) < slots.perKind[k]);
}
