// One transaction at a time per relayer account (per process). Concurrent sends would each take
// a nonce; if one then fails before broadcasting, the nonces after it are stuck behind the gap
// until something fills it (seen on anvil: a settle waiting out its receipt timeout). Only the
// estimate + sign + broadcast is serialised; waiting for receipts stays concurrent.
const tails = new Map<string, Promise<unknown>>();

/** Runs `fn` after every earlier call with the same key has settled, whatever their outcome. */
export function runSerially<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  const run = previous.then(
    () => fn(),
    () => fn(),
  );
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  tails.set(key, tail);
  // Forget finished queues so the map does not grow with every relayer ever used.
  void tail.then(() => {
    if (tails.get(key) === tail) tails.delete(key);
  });
  return run;
}
