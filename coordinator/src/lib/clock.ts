/** Injected time source: domain code never calls Date.now() directly, so tests can move time. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can advance by hand. */
export function createManualClock(start = new Date('2026-01-01T00:00:00Z')): Clock & { advance(ms: number): void; set(at: Date): void } {
  let t = start.getTime();
  return {
    now: () => new Date(t),
    advance: (ms) => {
      t += ms;
    },
    set: (at) => {
      t = at.getTime();
    },
  };
}

export const addMs = (d: Date, ms: number): Date => new Date(d.getTime() + ms);
