// Times, durations and ids as people read them in a thread: UTC clock times, "55 min", "4f2a…".
// Everything is computed from the epoch milliseconds passed in; nothing reads the clock.

import { formatCount } from "./limits.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "55 min", "2 h 5 min", "3 d 4 h"; under a minute is "under 1 min". */
export function formatDuration(ms: number): string {
  const value = Math.max(0, ms);
  if (value < MINUTE) return "under 1 min";
  if (value < HOUR) return `${Math.floor(value / MINUTE)} min`;
  if (value < DAY) {
    const minutes = Math.floor((value % HOUR) / MINUTE);
    return `${Math.floor(value / HOUR)} h${minutes === 0 ? "" : ` ${minutes} min`}`;
  }
  const hours = Math.floor((value % DAY) / HOUR);
  return `${Math.floor(value / DAY)} d${hours === 0 ? "" : ` ${hours} h`}`;
}

/** An interval people chose (follow-up cadence): exact seconds below a minute, else as formatDuration. */
export function formatInterval(ms: number): string {
  // The demo's half-second cadence must not read as "1 s": tenths below ten seconds.
  if (ms < 10_000) return `${Math.max(0.1, Math.round(ms / 100) / 10)} s`;
  return ms < MINUTE ? `${Math.round(ms / 1000)} s` : formatDuration(ms);
}

/** "09:12 UTC". */
export function formatUtcTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}

/** "2026-11-29 09:12 UTC". */
export function formatUtcDateTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The clock time alone when ms is on the same UTC day as nowMs, else date and time. */
export function formatUtcWhen(ms: number, nowMs: number): string {
  const sameDay = new Date(ms).toISOString().slice(0, 10) === new Date(nowMs).toISOString().slice(0, 10);
  return sameDay ? formatUtcTime(ms) : formatUtcDateTime(ms);
}

/** "3,420 s". */
export function formatSeconds(seconds: number): string {
  return `${formatCount(Math.round(seconds))} s`;
}

/** Long hex ids are recognisable by their first characters: "4f2a…". */
export function shortId(id: string, keep = 4): string {
  return id.length <= keep + 2 ? id : `${id.slice(0, keep)}…`;
}
