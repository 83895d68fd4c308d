// Iceberg snapshot ids are 64-bit longs; JSON.parse rounds anything past 2^53. Before any parser
// sees a catalog body, bare integers under the id keys become strings so they stay exact.

const KEY_SUFFIX = 'snapshot-id"';
const LONG_DIGITS = 16;

/**
 * Quotes long integer values of every key ending in `snapshot-id` (current-snapshot-id,
 * snapshot-id, parent-snapshot-id: top level, snapshots, snapshot-log, refs).
 *
 * A hand scanner rather than a regular expression: bodies reach ~100 MiB and this pass must cost
 * a small fraction of the JSON.parse that follows. Keys written inside string values are escaped
 * (`\"snapshot-id\"`), so a key whose closing quote follows a backslash is left alone.
 */
export function protectSnapshotIds(json: string): string {
  // Pieces joined once at the end: repeated += would build a rope that every later pass flattens.
  const pieces: string[] = [];
  let copiedUpTo = 0;
  let hit = json.indexOf(KEY_SUFFIX);
  while (hit !== -1) {
    const closingQuote = hit + KEY_SUFFIX.length - 1;
    let at = closingQuote + 1;
    if (!escapedQuote(json, closingQuote)) {
      at = skipSpace(json, at);
      if (json.charCodeAt(at) === COLON) {
        const start = skipSpace(json, at + 1);
        let end = json.charCodeAt(start) === MINUS ? start + 1 : start;
        while (isDigit(json.charCodeAt(end))) end++;
        if (end - start >= LONG_DIGITS) {
          pieces.push(json.slice(copiedUpTo, start), '"', json.slice(start, end), '"');
          copiedUpTo = end;
        }
        at = end;
      }
    }
    hit = json.indexOf(KEY_SUFFIX, at);
  }
  if (copiedUpTo === 0) return json;
  pieces.push(json.slice(copiedUpTo));
  return pieces.join("");
}

const BACKSLASH = 92;
const COLON = 58;
const MINUS = 45;

function escapedQuote(json: string, quoteAt: number): boolean {
  return json.charCodeAt(quoteAt - 1) === BACKSLASH;
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
