// Iceberg snapshot ids are 64-bit longs; JSON.parse rounds anything past 2^53. The long values of
// every key ending in `snapshot-id` (snapshots, parents, the log, refs, the current one) are
// quoted before any parser sees them: in the body's bytes as they are decoded (quoteSnapshotIdBytes,
// the catalog's path), or in a string by one native regular-expression pass (protectSnapshotIds,
// for bodies of unknown length). Either is cheaper than mapping rounded numbers back to digits.
// Inside a JSON string a quote is escaped, so `snapshot-id":` can only end a key. 16 digits and
// more may exceed 2^53; shorter values survive JSON.parse exactly and stay numbers. A fraction or
// exponent is left unquoted, so the schema still reports a non-integer id.
import type { BodyRewrite } from "./http.js";

const LONG_ID = /(snapshot-id"\s*:\s*)(-?\d{16,})(?![.eE])/g;

/** Quotes long integer values of every key ending in `snapshot-id`. */
export function protectSnapshotIds(json: string): string {
  return json.replace(LONG_ID, '$1"$2"');
}

const KEY = Buffer.from('snapshot-id"');
const QUOTE = 34;
const COLON = 58;
const MINUS = 45;
const DOT = 46;
/** 16 digits and more may exceed 2^53. */
const LONG_DIGITS = 16;

/**
 * protectSnapshotIds on the raw bytes, in place, before they are decoded: a ~100 MiB body is then
 * never held as two strings (the original and the quoted copy). Each id takes 30 bytes and more
 * (`"snapshot-id":` and 16 digits) and gains 2, so a body grows by at most a fifteenth.
 */
export const quoteSnapshotIdBytes: BodyRewrite = {
  slack: (size: number) => Math.ceil(size / 15) + 2,
  apply(buffer: Buffer, size: number): number | undefined {
    const body = buffer.subarray(0, size);
    const ids: number[] = []; // start, end of each long id's digits, in body order
    let hit = body.indexOf(KEY);
    while (hit !== -1) {
      let at = skipSpace(body, hit + KEY.length);
      if (body[at] === COLON) {
        const start = skipSpace(body, at + 1);
        let end = body[start] === MINUS ? start + 1 : start;
        while (isDigit(body[end])) end++;
        const next = body[end];
        if (end - start >= LONG_DIGITS && next !== DOT && next !== 101 && next !== 69) ids.push(start, end);
        at = end;
      }
      hit = body.indexOf(KEY, at);
    }
    let shift = ids.length; // two quotes per id
    if (size + shift > buffer.length) return undefined;
    // From the end backwards, each stretch moves once, right by the quotes inserted before it.
    let tail = size;
    for (let i = ids.length - 2; i >= 0; i -= 2) {
      const start = ids[i]!;
      const end = ids[i + 1]!;
      buffer.copyWithin(end + shift, end, tail);
      buffer[end + shift - 1] = QUOTE;
      buffer.copyWithin(start + shift - 1, start, end);
      buffer[start + shift - 2] = QUOTE;
      shift -= 2;
      tail = start;
    }
    return size + ids.length;
  },
};

function skipSpace(bytes: Buffer, from: number): number {
  let at = from;
  for (;;) {
    const c = bytes[at];
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return at;
    at++;
  }
}

function isDigit(code: number | undefined): boolean {
  return code !== undefined && code >= 48 && code <= 57;
}
