// Counters behind the slash-command rate limits (core/command-rate.ts): one per person and one per
// table per fixed window, in Redis so every receiver and worker counts against the same budget.
// One script: both counters move together, and each expires with its window.

import { type CommandRateLimits, commandWindow, decideCommandRate } from "../../core/command-rate.js";
import type { CommandRatePort } from "../../services/ports.js";
import type { RedisClient } from "../redis/connection.js";
import { DEFAULT_NAMESPACE } from "./keys.js";

// The person's counter always moves; the table's only when the person is within their limit, so
// one person's flood does not use up everybody's budget for the table.
const COUNT = `
local person = redis.call('INCR', KEYS[1])
if person == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
if #KEYS < 2 or person > tonumber(ARGV[2]) then return {person, -1} end
local tbl = redis.call('INCR', KEYS[2])
if tbl == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
return {person, tbl}
`;

/** Without Redis a request runs: a limit is not worth an outage. */
export type CommandRateCounter = CommandRatePort;

export function commandRateCounter(
  redis: RedisClient,
  limits: CommandRateLimits,
  options: { namespace?: string; now: () => number },
): CommandRateCounter {
  const prefix = `{${options.namespace ?? DEFAULT_NAMESPACE}}:command-rate`;
  return {
    async take({ user, table }) {
      const window = commandWindow(options.now(), limits.windowSeconds);
      const keys = [`${prefix}:person:${user}:${window.index}`];
      // Table names are compared as the catalog compares them (ignoring case).
      if (table !== undefined) keys.push(`${prefix}:table:${table.toLowerCase()}:${window.index}`);
      try {
        const [person, tbl] = (await redis.eval(
          COUNT,
          keys.length,
          ...keys,
          String(limits.windowSeconds * 1000 * 2),
          String(limits.perPerson),
        )) as [number, number];
        return decideCommandRate(
          { person: Number(person), ...(Number(tbl) >= 0 ? { table: Number(tbl) } : {}) },
          limits,
          window,
        );
      } catch {
        return { allowed: true };
      }
    },
  };
}
