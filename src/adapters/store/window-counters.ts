// Fixed-window counters in Redis, shared by every process: the sweep's requests per second to each
// source, and the slash-command rate limits (core/command-rate.ts) per person and per table. One
// script counts them (scripts/count-in-windows.lua); each counter expires with its window. The
// windows are fixed, so at a window's edge a burst of up to twice the budget is possible; over time
// the rate holds. Without Redis nothing waits and nothing is refused: a limit is not worth an outage.

import { type CommandRateLimits, commandWindow, decideCommandRate } from "../../core/command-rate.js";
import type { CommandRatePort } from "../../services/ports.js";
import { catalogLimiter } from "../queue/sweep-queue.js";
import type { RedisClient } from "../redis/connection.js";
import { runScript } from "../redis/scripts.js";
import { DEFAULT_NAMESPACE } from "./keys.js";

/** Counts one in each counter, in order; a counter over its limit leaves the later ones (-1) alone. */
async function countInWindows(
  redis: RedisClient,
  counters: readonly { key: string; limit: number }[],
  expireMs: number,
): Promise<number[]> {
  const counts = (await runScript(
    redis,
    "count-in-windows",
    counters.map((c) => c.key),
    [String(expireMs), ...counters.map((c) => String(c.limit))],
  )) as number[];
  return counts.map(Number);
}

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
  const { max, duration: windowMs } = catalogLimiter(perSecond);
  const prefix = `{${options.namespace ?? DEFAULT_NAMESPACE}}:sweep:rate:${source}`;
  return async () => {
    for (;;) {
      const t = now();
      const window = Math.floor(t / windowMs);
      try {
        const [n = 0] = await countInWindows(
          redis,
          [{ key: `${prefix}:${window}`, limit: max }],
          windowMs * 2,
        );
        if (n <= max) return;
      } catch {
        // Without Redis there is no shared budget; going on beats stalling the sweep.
        return;
      }
      await sleep((window + 1) * windowMs - t + 1);
    }
  };
}

/**
 * The slash-command counters: the person's always moves; the table's only when the person is
 * within their limit, so one person's flood does not use up everybody's budget for the table.
 */
export function commandRateCounter(
  redis: RedisClient,
  limits: CommandRateLimits,
  options: { namespace?: string; now: () => number },
): CommandRatePort {
  const prefix = `{${options.namespace ?? DEFAULT_NAMESPACE}}:command-rate`;
  return {
    async take({ user, table }) {
      const window = commandWindow(options.now(), limits.windowSeconds);
      const counters = [{ key: `${prefix}:person:${user}:${window.index}`, limit: limits.perPerson }];
      // Table names are compared as the catalog compares them (ignoring case).
      if (table !== undefined)
        counters.push({
          key: `${prefix}:table:${table.toLowerCase()}:${window.index}`,
          limit: limits.perTable,
        });
      try {
        const [person = 0, tbl = -1] = await countInWindows(redis, counters, limits.windowSeconds * 1000 * 2);
        return decideCommandRate({ person, ...(tbl >= 0 ? { table: tbl } : {}) }, limits, window);
      } catch {
        return { allowed: true };
      }
    },
  };
}
