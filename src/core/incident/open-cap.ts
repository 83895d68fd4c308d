// How many new incidents one notification may open: the per-notification cap, then what is left
// of the minute's budget (counted in Redis). Pure: which tables open now and which wait.

export interface OpenCap {
  perRequest: number;
  perMinute: number;
}

export const DEFAULT_OPEN_CAP: OpenCap = { perRequest: 20, perMinute: 60 };

/**
 * Splits the tables a notification would open incidents for, in the order they came: the first
 * `granted` open now, the rest wait. `granted` is what the minute's budget gave (at most
 * `perRequest`).
 */
export function splitByCap(tables: readonly string[], granted: number): { now: string[]; later: string[] } {
  const n = Math.max(0, Math.min(granted, tables.length));
  return { now: tables.slice(0, n), later: tables.slice(n) };
}

/** The one note that says what waits: "37 more tables alerted; they will be opened as the cap allows". */
export function deferredNote(count: number, cap: OpenCap): string {
  const tables = count === 1 ? "1 more table" : `${count.toLocaleString("en-US")} more tables`;
  return (
    `${tables} alerted; they will be opened as the cap allows ` +
    `(at most ${cap.perRequest} incidents per notification and ${cap.perMinute} a minute).`
  );
}
