// The local Slack page draws Slack's emoji codes itself: every code the bot's messages use has a
// character there, so the page never shows ":grey_question:" where Slack shows ❔.

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEV_PAGE } from "../../src/cli/dev-page.js";
import { filesUnder } from "../support/files.js";
import { REPO_ROOT } from "../support/openapi.js";

describe("the local Slack page's emoji", () => {
  it("has a character for every emoji code the bot's messages use", () => {
    const map = /var EMOJI = \{([^}]*)\}/.exec(DEV_PAGE)?.[1] ?? "";
    const known = new Set([...map.matchAll(/(\w+): "/g)].map((m) => m[1]));
    const used = new Set<string>();
    for (const dir of ["src/adapters/slack", "src/core", "src/services"])
      for (const file of filesUnder(path.join(REPO_ROOT, dir)).filter((f) => f.endsWith(".ts")))
        for (const m of readFileSync(file, "utf8").matchAll(/[`"' ]:([a-z][a-z_]+):[`"' ]/g)) used.add(m[1]!);
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((code) => !known.has(code))).toEqual([]);
  });
});
