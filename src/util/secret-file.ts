// Secrets named by a `…File` setting follow their file: each use re-stats it (cheap, no read) and
// re-reads it, through the one safe reader, only when it changed. A rotated token (a Kubernetes
// Secret volume swaps its files behind a symlink) is sent from the next request on, with no
// restart. A file caught mid-rotation (missing, empty, refused) keeps the last good value.

import { statSync } from "node:fs";
import { readSmallFile } from "./read-small-file.js";

interface Seen {
  value: string;
  /** What the file was when read: a change in any of them means a new file. */
  mtimeMs: number;
  size: number;
  ino: number;
}

/** Bounded: the files a configuration names are few; a surprise beyond this starts afresh. */
const MAX_FILES = 256;
const seen = new Map<string, Seen>();
/** Every value read since start, for scrubbing (bounded too: the newest are kept). */
const MAX_VALUES = 64;
const values: string[] = [];

/** The file's current secret (trimmed), or `initial` when there is no file to follow. */
export function currentSecret(initial: string, file: string | undefined): string {
  if (!file) return initial;
  const last = seen.get(file);
  try {
    const stat = statSync(file);
    if (last && stat.mtimeMs === last.mtimeMs && stat.size === last.size && stat.ino === last.ino)
      return last.value;
    const value = readSmallFile(file).trim();
    if (value === "") return last?.value ?? initial;
    if (seen.size >= MAX_FILES && !last) seen.clear();
    seen.set(file, { value, mtimeMs: stat.mtimeMs, size: stat.size, ino: stat.ino });
    if (value !== last?.value) remember(value);
    return value;
  } catch {
    return last?.value ?? initial;
  }
}

function remember(value: string): void {
  if (values.includes(value)) return;
  values.push(value);
  if (values.length > MAX_VALUES) values.shift();
}

/** The values read from secret files since start (a rotated one included), for scrubbing text. */
export function secretFileValues(): readonly string[] {
  return values;
}
