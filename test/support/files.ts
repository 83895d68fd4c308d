// Every file below a folder, for the tests that read the repository's own sources.

import { readdirSync, statSync } from "node:fs";
import path from "node:path";

export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}
