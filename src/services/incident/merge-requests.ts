// A flood of identical requests (94 people, or one person 94 times, asking `/iceberg diagnose
// db.events` at once) must not become 94 full evidence reads and 94 posts. Identical requests
// in flight, and those that arrive within a short while after, share one read; the answer they
// share has one id, so each place that asked (a channel, an incident thread) gets it once.

interface Merged<T> {
  value: T;
  /** The same for every request that shared this read. */
  id: string;
}

export interface RequestMerger {
  run<T>(key: string, read: () => Promise<T>): Promise<Merged<T>>;
}

/** `reuseMs`: how long after a read finishes its answer still serves the same request. */
function createRequestMerger(now: () => number, reuseMs = 30_000): RequestMerger {
  const flights = new Map<string, { startedAt: number; finishedAt?: number; promise: Promise<unknown> }>();
  return {
    run<T>(key: string, read: () => Promise<T>): Promise<Merged<T>> {
      const t = now();
      for (const [k, f] of flights)
        if (f.finishedAt !== undefined && t - f.finishedAt > reuseMs) flights.delete(k);
      let flight = flights.get(key);
      if (!flight) {
        const entry: { startedAt: number; finishedAt?: number; promise: Promise<unknown> } = {
          startedAt: t,
          promise: Promise.resolve(),
        };
        entry.promise = read().then(
          (value) => {
            entry.finishedAt = now();
            return value;
          },
          (error: unknown) => {
            // A failure is not kept: the next request reads again.
            if (flights.get(key) === entry) flights.delete(key);
            throw error;
          },
        );
        flights.set(key, entry);
        flight = entry;
      }
      const id = `${key}@${flight.startedAt}`;
      return (flight.promise as Promise<T>).then((value) => ({ value, id }));
    },
  };
}

const mergers = new WeakMap<object, RequestMerger>();

/** One merger per set of deps (one per bot process), made on first use. */
export function mergerFor(owner: object, now: () => number): RequestMerger {
  let merger = mergers.get(owner);
  if (!merger) {
    merger = createRequestMerger(now);
    mergers.set(owner, merger);
  }
  return merger;
}
