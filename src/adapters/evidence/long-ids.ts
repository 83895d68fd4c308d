// Finds the long integer values of keys ending in `snapshot-id` in a JSON text (top level,
// snapshots, snapshot-log, refs) without parsing it: the one scan both ways of keeping 64-bit ids
// exact are built on. Bodies reach ~100 MiB, so it is an indexOf loop, not a regular expression.
// Keys written inside string values are escaped (`\"snapshot-id\"`) and are skipped.

const KEY_SUFFIX = 'snapshot-id"';
/** 16 digits and more can exceed 2^53; shorter values survive JSON.parse as they are. */
const LONG_DIGITS = 16;

const BACKSLASH = 92;
const COLON = 58;
const MINUS = 45;

/** Calls `visit(start, end)` for each long id value, in text order; `visit` returns false to stop. */
export function forEachLongId(json: string, visit: (start: number, end: number) => boolean): void {
  let hit = json.indexOf(KEY_SUFFIX);
  while (hit !== -1) {
    const closingQuote = hit + KEY_SUFFIX.length - 1;
    let at = closingQuote + 1;
    if (json.charCodeAt(closingQuote - 1) !== BACKSLASH) {
      at = skipSpace(json, at);
      if (json.charCodeAt(at) === COLON) {
        const start = skipSpace(json, at + 1);
        let end = json.charCodeAt(start) === MINUS ? start + 1 : start;
        while (isDigit(json.charCodeAt(end))) end++;
        if (end - start >= LONG_DIGITS && !visit(start, end)) return;
        at = end;
      }
    }
    hit = json.indexOf(KEY_SUFFIX, at);
  }
}

function skipSpace(json: string, from: number): number {
  let at = from;
  for (;;) {
    const c = json.charCodeAt(at);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return at;
    at++;
  }
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
