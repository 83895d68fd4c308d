// While Redis is unreachable every connection (ours and the ones BullMQ opens for each queue and
// worker) reports an error on every reconnect attempt. One structured line per retry period says
// so; the rest are counted into that line. An emitter without an "error" listener would crash the
// process with a raw stack trace, so every queue and worker is given one here.

export const REDIS_RETRY_PERIOD_MS = 5_000;

/** ioredis reconnect delay: quick at first, then once per retry period while Redis stays away. */
export function redisRetryStrategy(times: number): number {
  return Math.min(times * 200, REDIS_RETRY_PERIOD_MS);
}

interface Listenable {
  on(event: "error", listener: (error: Error) => void): unknown;
}

export interface ConnectionErrorReporter {
  /** Adds the error listener to an emitter (Redis connection, BullMQ queue or worker). */
  watch<T extends Listenable>(emitter: T, source: string): T;
  /** Reports one error of `source` (a worker's "error" event): one line per retry period. */
  report(source: string, error: Error): void;
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);

/** ioredis's words for a connection that is down, when the error carries no system code. */
function isConnectionError(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined) return CONNECTION_CODES.has(code);
  return /connection is closed|connect e|stream isn't writeable|reached the max retries/i.test(error.message);
}

export function connectionErrorReporter(
  log: { warn(fields: Record<string, unknown>, message: string): void },
  options: { periodMs?: number; now?: () => number } = {},
): ConnectionErrorReporter {
  const periodMs = options.periodMs ?? REDIS_RETRY_PERIOD_MS;
  const now = options.now ?? Date.now;
  let lastAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  const report = (source: string, error: Error, outage = true) => {
    const at = now();
    if (at - lastAt < periodMs) {
      suppressed += 1;
      return;
    }
    lastAt = at;
    const code = (error as NodeJS.ErrnoException).code;
    log.warn(
      {
        source,
        err: error.message,
        ...(code === undefined ? {} : { code }),
        ...(suppressed > 0 ? { alsoFailed: suppressed } : {}),
        retryEveryMs: periodMs,
      },
      outage ? "redis unreachable, retrying" : "queue worker error",
    );
    suppressed = 0;
  };
  return {
    watch(emitter, source) {
      emitter.on("error", (error) => report(source, error));
      return emitter;
    },
    // A worker's own failure (a lock it could not renew, a script error) is not an outage.
    report: (source, error) => report(source, error, isConnectionError(error)),
  };
}
