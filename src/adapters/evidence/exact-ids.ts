// Iceberg snapshot ids are 64-bit longs and JSON.parse rounds those past 2^53. Rewriting a
// ~100 MiB body to quote them costs as much as parsing it, so instead the digits are collected
// in one cheap scan while the body passes through our fetch, and the parsed (rounded) numbers are
// mapped back to them when the metadata is normalised. The map lives in an async scope around one
// catalog call, so concurrent loads never see each other's ids.

import { AsyncLocalStorage } from "node:async_hooks";
import { forEachLongId } from "./long-ids.js";

interface CallScope {
  ids: Map<number, string>;
  /** LoadTableResult's metadata-location, which iceberg-js drops (it returns only `metadata`). */
  metadataLocation?: string;
}

const scope = new AsyncLocalStorage<CallScope>();

/** Runs one catalog call with its own id map; ids read inside it resolve exactly. */
export function withExactIds<T>(run: () => Promise<T>): Promise<T> {
  return scope.run({ ids: new Map() }, run);
}

/** Keeps the body's metadata-location for the call in progress (see metadataLocationOfCall). */
export function recordMetadataLocation(location: string): void {
  const current = scope.getStore();
  if (current) current.metadataLocation = location;
}

export function metadataLocationOfCall(): string | undefined {
  return scope.getStore()?.metadataLocation;
}

/**
 * Records the exact digits of every long value under a key ending in `snapshot-id`. Returns false
 * when that is not enough to restore them (no scope, or two ids that round to the same number),
 * in which case the caller quotes the ids in the text instead.
 */
export function recordExactIds(json: string): boolean {
  const ids = scope.getStore()?.ids;
  if (!ids) return false;
  let consistent = true;
  forEachLongId(json, (start, end) => {
    const digits = json.slice(start, end);
    const rounded = Number(digits);
    const known = ids.get(rounded);
    // Parents and the snapshot log repeat ids already seen: only new ones are stored, as a copy.
    // A plain slice would be a view that keeps the whole body alive as long as the id lives (in
    // the evidence, for the whole diagnosis); going through a short concatenation copies the digits.
    if (known === undefined) ids.set(rounded, ` ${digits}`.slice(1));
    else if (known !== digits) consistent = false;
    return consistent;
  });
  return consistent;
}

/** The exact id for a parsed number: the recorded digits, or the number itself when it is small. */
export function exactId(value: number): string {
  return scope.getStore()?.ids.get(value) ?? String(value);
}

/** exactId for many ids at once: the call's scope is looked up once, not once per id. */
export function exactIdsOfCall(): (value: number) => string {
  const ids = scope.getStore()?.ids;
  return ids ? (value) => ids.get(value) ?? String(value) : String;
}
