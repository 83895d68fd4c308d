// How many new incidents one notification may open: the per-notification cap, then what is left
// of the minute's budget (counted in Redis). Pure: which tables open now and which wait.

import { groupDigits } from "../plural.js";

export interface OpenCap {
  perRequest: number;
  perMinute: number;
}

/** The one note that says what waits: "37 more tables alerted; they will be opened as the cap allows". */
export function deferredNote(count: number, cap: OpenCap): string {
  const tables = count === 1 ? "1 more table" : `${groupDigits(count)} more tables`;
  return (
    `${tables} alerted; they will be opened as the cap allows ` +
    `(at most ${cap.perRequest} incidents per notification and ${cap.perMinute} a minute). ` +
    "Tables over the cap later this minute wait the same way, without another note."
  );
}
