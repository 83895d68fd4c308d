// Iceberg snapshot ids are 64-bit longs; JSON.parse rounds anything past 2^53. This is the
// fallback that quotes them in the text before any parser sees it (exact-ids.ts is the cheap way).

import { forEachLongId } from "./long-ids.js";

/** Quotes long integer values of every key ending in `snapshot-id`. */
export function protectSnapshotIds(json: string): string {
  // Pieces joined once at the end: repeated += would build a rope that every later pass flattens.
  const pieces: string[] = [];
  let copiedUpTo = 0;
  forEachLongId(json, (start, end) => {
    pieces.push(json.slice(copiedUpTo, start), '"', json.slice(start, end), '"');
    copiedUpTo = end;
    return true;
  });
  if (copiedUpTo === 0) return json;
  pieces.push(json.slice(copiedUpTo));
  return pieces.join("");
}
