// The repository carries everything its tests read: no path climbs out of the checkout, and
// every upstream fixture is named (with its source) in the fixtures README.

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { filesUnder } from "../support/files.js";
import { REAL_DIR, REPO_ROOT } from "../support/openapi.js";

describe("self-contained checkout", () => {
  it("no source, test or benchmark refers to a folder beside the repository", () => {
    const offenders: string[] = [];
    for (const top of ["src", "test", "bench"]) {
      for (const file of filesUnder(path.join(REPO_ROOT, top))) {
        if (!/\.(ts|js|mjs)$/.test(file)) continue;
        const text = readFileSync(file, "utf8");
        // Every relative path literal ("../x", `../x/${y}`) must resolve inside the checkout.
        for (const m of text.matchAll(/["'`]((?:\.\.\/)+)/g)) {
          const target = path.resolve(path.dirname(file), m[1] ?? "");
          if (!`${target}/`.startsWith(`${REPO_ROOT}/`)) offenders.push(path.relative(REPO_ROOT, file));
        }
        if (/REPO_ROOT,\s*["'`]\.\./.test(text)) offenders.push(path.relative(REPO_ROOT, file));
      }
    }
    expect(offenders).toEqual([]);
  });

  it("names every upstream fixture in its README, and every file it names exists", () => {
    const readme = readFileSync(path.join(REAL_DIR, "README.md"), "utf8");
    const files = filesUnder(REAL_DIR)
      .map((f) => path.basename(f))
      .filter((f) => f !== "README.md");
    expect(files.length).toBeGreaterThan(20);
    expect(files.filter((f) => !readme.includes(`${f}\``))).toEqual([]);
    // Plain backticked file names (no folder) in the tables are ours; they must all be present.
    const named = [...readme.matchAll(/`([\w.-]+\.(?:json|ya?ml))`/g)].map((m) => m[1] ?? "");
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((n) => !files.includes(n))).toEqual([]);
  });
});
