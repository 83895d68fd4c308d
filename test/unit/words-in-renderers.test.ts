// The core and the services hand out data; the Slack renderers own every word of markup. A
// mention, a broadcast or an emoji code written in either of them would reach Slack unrendered
// by the renderers' rules (and unescaped), so none may appear there.

import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/openapi.js";

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourcesUnder(full);
    return full.endsWith(".ts") ? [full] : [];
  });
}

// User and group mentions, broadcasts, channel links, emoji codes at the start of a string.
const SLACK_MARKUP = /<@[A-Z$]|<!subteam|<!here|<!channel|<!everyone|<#C|["'`]:[a-z0-9_+-]+:/;

describe("Slack markup lives in the renderers only", () => {
  it("finds none in src/core or src/services", () => {
    const offenders = ["src/core", "src/services"].flatMap((top) =>
      sourcesUnder(path.join(REPO_ROOT, top)).flatMap((file) =>
        readFileSync(file, "utf8")
          .split("\n")
          .map((line, i) => ({ line, at: `${path.relative(REPO_ROOT, file)}:${i + 1}` }))
          .filter(({ line }) => SLACK_MARKUP.test(line) && !line.trimStart().startsWith("//"))
          .map(({ at, line }) => `${at}: ${line.trim()}`),
      ),
    );
    expect(offenders).toEqual([]);
  });

  it("would catch a mention written in a service", () => {
    expect(SLACK_MARKUP.test("text: `fix started by <@U0ALICE>`")).toBe(true);
    expect(SLACK_MARKUP.test('notice: ":white_check_mark: applied"')).toBe(true);
    expect(SLACK_MARKUP.test("text: `fix started by U0ALICE`")).toBe(false);
  });
});
