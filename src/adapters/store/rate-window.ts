// Requests per second shared by every worker: a counter per source and time window in Redis.
// A caller over the budget waits for the next window. The windows are fixed, so at a window's
// edge a burst of up to twice the budget in one second is possible; over a sweep the rate holds.

import type { RedisClient } from "../redis/connection.js";
import { DEFAULT_NAMESPACE } from "./keys.js";

const COUNT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
`;

export interface RateWindowOptions {
  namespace?: string;
  /** Wall clock; injectable for tests. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Returns a gate for `source` allowing `perSecond` requests per second across processes. */
export function rateWindow(
  redis: RedisClient,
  source: string,
  perSecond: number,
  options: RateWindowOptions = {},
): () => Promise<void> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  // Below one request per second the window widens so that it still allows one.
  const windowMs = perSecond >= 1 ? 1000 : Math.ceil(1000 / perSecond);
  const max = perSecond >= 1 ? Math.floor(perSecond) : 1;
  const prefix = `{${options.namespace ?? DEFAULT_NAMESPACE}}:sweep:rate:${source}`;
  return async () => {
    for (;;) {
      const t = now();
      const window = Math.floor(t / windowMs);
      try {
        const n = Number(await redis.eval(COUNT, 1, `${prefix}:${window}`, String(windowMs * 2)));
        if (n <= max) return;
      } catch {
        // Without Redis there is no shared budget; going on beats stalling the sweep.
        return;
      }
      await sleep((window + 1) * windowMs - t + 1);
    }
  };
}
