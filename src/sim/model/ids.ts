// Deterministic, realistic-looking identifiers: the same scenario always yields the same ids,
// which keeps test expectations and demo transcripts stable.

import { createHash } from "node:crypto";

const MASK64 = (1n << 64n) - 1n;
const MIN_ID = 1n << 54n; // above 2^53 so clients that parse ids as JS numbers visibly lose digits
const RANGE = (1n << 63n) - 1n - MIN_ID;

function splitmix64(x: bigint): bigint {
  let z = (x + 0x9e3779b97f4a7c15n) & MASK64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

export function seedFrom(text: string): bigint {
  return BigInt(`0x${createHash("sha256").update(text).digest("hex").slice(0, 16)}`);
}

/** The n-th snapshot id of a table: a positive 64-bit long greater than 2^54. */
export function snapshotId(seed: bigint, n: number): bigint {
  return MIN_ID + (splitmix64((seed + BigInt(n)) & MASK64) % RANGE);
}

/** A version-4-shaped UUID derived from a name. */
export function uuidFrom(text: string): string {
  const h = createHash("sha256").update(text).digest("hex");
  const variant = ((Number.parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A 32-hex-digit id (Flink job, vertex and operator ids) derived from a name. */
export function hex32From(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}
