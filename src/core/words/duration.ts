// The one way a duration reads, everywhere: the thread, the card, reports, the postmortem and the
// core's own summaries. Two formatters once said "4 min" and "5 min" for the same recovery.

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/**
 * "45 s", "4 min 5 s", "55 min", "2 h 5 min", "3 d 4 h": seconds only where they still matter,
 * under ten minutes. Negative durations read as zero.
 */
export function formatDuration(ms: number): string {
  const totalSeconds = Math.max(0, Math.round(ms / SECOND));
  const days = Math.floor(totalSeconds / 86_400);
  const hours = Math.floor((totalSeconds % 86_400) / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  if (minutes >= 10 || (minutes > 0 && seconds === 0)) return `${minutes} min`;
  if (minutes > 0) return `${minutes} min ${seconds} s`;
  return `${seconds} s`;
}

/** An interval people chose (follow-up cadence): tenths of a second below ten seconds, else as formatDuration. */
export function formatInterval(ms: number): string {
  // The demo's half-second cadence must not read as "1 s" (or "0 s").
  if (ms < 10 * SECOND) return `${Math.max(0.1, Math.round(ms / 100) / 10)} s`;
  return ms < MINUTE ? `${Math.round(ms / SECOND)} s` : formatDuration(ms);
}
