// The one UTC clock for text that cannot carry a Slack date token: code blocks, documents, the
// terminal, pictures. Deterministic: no locale, no time zone but UTC.

/** "09:12": for places that say "UTC" once (a chart's axis, a legend). */
export function utcHourMinute(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

/** "2026-11-29": the UTC day. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** "09:12 UTC". */
export function utcTime(ms: number): string {
  return `${utcHourMinute(ms)} UTC`;
}

/** "2026-11-29 09:12 UTC". */
export function utcDateTime(ms: number): string {
  return `${utcDay(ms)} ${utcTime(ms)}`;
}

/** The clock time alone when ms is on the same UTC day as nowMs, else date and time. */
export function utcWhen(ms: number, nowMs: number): string {
  return Number.isFinite(nowMs) && utcDay(ms) === utcDay(nowMs) ? utcTime(ms) : utcDateTime(ms);
}
