// Whether a slash command may run now: per-person and per-table limits over fixed windows. Pure:
// the counts come from Redis (adapters/store/window-counters.ts), shared by every process.

import { formatDuration } from "./words/duration.js";

export interface CommandRateLimits {
  /** `/iceberg diagnose|audit|history` per person per window. */
  perPerson: number;
  /** `/iceberg diagnose|audit` per table per window (identical requests merged still count). */
  perTable: number;
  windowSeconds: number;
}

/** The fixed window `nowMs` falls in: its number (for the counter's key) and when it ends. */
export function commandWindow(nowMs: number, windowSeconds: number): { index: number; endsAt: number } {
  const ms = windowSeconds * 1000;
  const index = Math.floor(nowMs / ms);
  return { index, endsAt: (index + 1) * ms };
}

export type CommandRateDecision =
  | { allowed: true }
  | {
      allowed: false;
      limited: "person" | "table";
      limit: number;
      windowSeconds: number;
      retryAt: number;
      /**
       * Whether to tell the person: once per window for their own rate (a flood of 94 gets one
       * reply, not 88), every time for a table's (each asker is someone else, or within their rate).
       */
      reply: boolean;
    };

/**
 * The decision for one request, given the counts including it. The person's limit is checked
 * first: a person over it is told about their own rate, whatever the table's.
 */
export function decideCommandRate(
  counts: { person: number; table?: number },
  limits: CommandRateLimits,
  window: { endsAt: number },
): CommandRateDecision {
  const over = (limited: "person" | "table", limit: number, reply: boolean): CommandRateDecision => ({
    allowed: false,
    limited,
    limit,
    windowSeconds: limits.windowSeconds,
    retryAt: window.endsAt,
    reply,
  });
  if (counts.person > limits.perPerson)
    return over("person", limits.perPerson, counts.person === limits.perPerson + 1);
  if (counts.table !== undefined && counts.table > limits.perTable)
    return over("table", limits.perTable, true);
  return { allowed: true };
}

/** "in 40 s", "in 2 min": when the person may try again (rounded up, never "in 0 s"). */
export function retryIn(nowMs: number, retryAt: number): string {
  const seconds = Math.max(1, Math.ceil((retryAt - nowMs) / 1000));
  return `in ${formatDuration(seconds * 1000)}`;
}
