// Iceberg snapshot ids are 64-bit longs; JSON.parse rounds anything past 2^53. Before any parser
// sees a catalog body, bare integers under the id keys become strings so they stay exact.

const ID_KEYS = "snapshot-id|parent-snapshot-id|current-snapshot-id";
// A key preceded by a backslash sits inside a JSON string value and is left alone.
const BARE_LONG_ID = new RegExp(`(?<!\\\\)"(${ID_KEYS})"(\\s*:\\s*)(-?\\d{16,})(?=\\s*[,}\\]])`, "g");

/** Quotes long integer values of snapshot id keys (top level, snapshots, snapshot-log, refs). */
export function protectSnapshotIds(json: string): string {
  // A replacement string, not a callback: this runs over bodies of many megabytes.
  return json.replace(BARE_LONG_ID, '"$1"$2"$3"');
}
