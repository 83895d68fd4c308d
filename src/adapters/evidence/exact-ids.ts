// Iceberg snapshot ids are 64-bit longs and JSON.parse rounds those past 2^53. Rewriting a
// ~100 MiB body to quote them costs as much as parsing it, so instead the digits are collected
// in one cheap scan while the body passes through our fetch, and the parsed (rounded) numbers are
// mapped back to them when the metadata is normalised. The map lives in an async scope around one
// catalog call, so concurrent loads never see each other's ids.

import { AsyncLocalStorage } from "node:async_hooks";

const KEY_SUFFIX = 'snapshot-id"';
const LONG_DIGITS = 16;
const scope = new AsyncLocalStorage<Map<number, string>>();

/** Runs one catalog call with its own id map; ids read inside it resolve exactly. */
export function withExactIds<T>(run: () => Promise<T>): Promise<T> {
  return scope.run(new Map(), run);
}

/**
 * Records the exact digits of every long value under a key ending in `snapshot-id`. Returns false
 * when that is not enough to restore them (no scope, or two ids that round to the same number),
 * in which case the caller quotes the ids in the text instead.
 */
export function recordExactIds(json: string): boolean {
  const ids = scope.getStore();
  if (!ids) return false;
  let hit = json.indexOf(KEY_SUFFIX);
  while (hit !== -1) {
    let at = skipSpace(json, hit + KEY_SUFFIX.length);
    if (json.charCodeAt(at) === COLON) {
      const start = skipSpace(json, at + 1);
      at = json.charCodeAt(start) === MINUS ? start + 1 : start;
      while (isDigit(json.charCodeAt(at))) at++;
      if (at - start >= LONG_DIGITS) {
        const digits = json.slice(start, at);
        const rounded = Number(digits);
        const known = ids.get(rounded);
        if (known !== undefined && known !== digits) return false;
        ids.set(rounded, digits);
      }
    }
    hit = json.indexOf(KEY_SUFFIX, at);
  }
  return true;
}

/** The exact id for a parsed number: the recorded digits, or the number itself when it is small. */
export function exactId(value: number): string {
  return scope.getStore()?.get(value) ?? String(value);
}

const COLON = 58;
const MINUS = 45;

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
