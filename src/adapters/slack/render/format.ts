// Counts and ids as people read them in a thread: "3,420 s", "4f2a…". Durations and clock times
// are the core's words (src/core/words), the same on every surface.

import { formatCount } from "./limits.js";

/** "3,420 s": a metric's own seconds, as a count. */
export function formatSeconds(seconds: number): string {
  return `${formatCount(Math.round(seconds))} s`;
}

/** Long hex ids are recognisable by their first characters: "4f2a…". */
export function shortId(id: string, keep = 4): string {
  return id.length <= keep + 2 ? id : `${id.slice(0, keep)}…`;
}
