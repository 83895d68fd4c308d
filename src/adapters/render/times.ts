// Times as people read them at a glance. Reports carry ISO-8601 stamps (exact, for machines); every
// place the bot writes for people turns them into a clock time: a Slack date token, so each reader
// sees their own time zone, or "20:30 UTC, 5 min ago" in a terminal.

import { utcDateTime, utcDay, utcWhen } from "../../core/words/clock.js";
import { formatDuration } from "../../core/words/duration.js";

const ISO_STAMP = /\b(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?Z\b/g;

/** "20:30 UTC, 5 min ago" (or "in 5 min" for a time after `nowMs`). */
export function plainWhen(ms: number, nowMs: number): string {
  const delta = nowMs - ms;
  if (Math.abs(delta) < 30_000) return `${utcWhen(ms, nowMs)}, just now`;
  return `${utcWhen(ms, nowMs)}, ${delta >= 0 ? `${formatDuration(delta)} ago` : `in ${formatDuration(-delta)}`}`;
}

/**
 * A Slack date token: each reader sees their own time zone. With `nowMs`, a time on the same day
 * reads as the clock alone; otherwise the date comes first ("yesterday 20:30", "Nov 28 20:30").
 * The fallback (clients that cannot render tokens, notifications) is the UTC time.
 */
export function slackWhen(ms: number, nowMs?: number): string {
  const seconds = Math.floor(ms / 1000);
  const sameDay = nowMs !== undefined && utcDay(ms) === utcDay(nowMs);
  const format = sameDay ? "{time}" : "{date_short_pretty} {time}";
  return `<!date^${seconds}^${format}|${utcWhen(ms, nowMs ?? Number.NaN)}>`;
}

/**
 * Every ISO stamp in already-escaped mrkdwn becomes a date token; inside code (where Slack would
 * show a token as typed) it becomes the UTC clock time instead.
 */
export function slackTimes(mrkdwn: string, nowMs?: number): string {
  return mrkdwn
    .split(/(```[\s\S]*?```|`[^`\n]*`)/)
    .map((part, i) =>
      i % 2 === 1
        ? part.replace(ISO_STAMP, (stamp) => utcWhen(Date.parse(stamp), nowMs ?? Number.NaN))
        : part.replace(ISO_STAMP, (stamp) => slackWhen(Date.parse(stamp), nowMs)),
    )
    .join("");
}

/** Every ISO stamp in plain text becomes "20:30 UTC, 5 min ago". */
export function plainTimes(text: string, nowMs: number): string {
  return text.replace(ISO_STAMP, (stamp) => plainWhen(Date.parse(stamp), nowMs));
}

// "1 h 5 min ago", "3 h ago", "just now": words that are true only the moment they were written.
const AGO = String.raw`(?:\d+ (?:d|h|min|s)(?: \d+ (?:h|min|s))? ago|just now)\b`;
const AGO_AFTER_COMMA = new RegExp(String.raw`,\s*${AGO}`, "g");
const AGO_BEFORE_MORE = new RegExp(String.raw`\b${AGO}[;,]\s*`, "g");
const AGO_ALONE = new RegExp(String.raw`\s*\b${AGO}`, "g");

/**
 * Text for a document read later (a postmortem): every ISO stamp becomes "2026-11-30 20:30 UTC",
 * and "5 min ago" (true only when it was written) is dropped, with the brackets it leaves empty.
 */
export function documentTimes(text: string): string {
  return text
    .replace(ISO_STAMP, (stamp) => utcDateTime(Date.parse(stamp)))
    .replace(AGO_AFTER_COMMA, "")
    .replace(AGO_BEFORE_MORE, "")
    .replace(AGO_ALONE, "")
    .replace(/\s*\(\s*\)/g, "");
}

/** When the report was made: the reference for "5 min ago". */
export function reportMs(report: { generatedAt: string }): number {
  return Date.parse(report.generatedAt);
}

/** A Slack date token for the day alone ("12 Nov" in the reader's zone); falls back to the UTC date. */
export function slackDay(ms: number): string {
  return `<!date^${Math.floor(ms / 1000)}^{date_short}|${utcDay(ms)}>`;
}
