// Shadow mode reports, per scenario, what autopilot would have done and whether that matches the
// step that fixed the incident (the bench runs the same over the whole library).

import { describe, expect, it } from "vitest";
import { shadowLines, shadowOverScenarios } from "../../src/cli/autopilot-shadow.js";
import { REDIS_URL } from "../support/redis.js";

describe("shadow mode over scenarios", () => {
  it("says what it would have done, whether people did the same and whether it fixed the incident", async () => {
    const rows = await shadowOverScenarios(
      ["competing-appends", "autopilot-retries-do-not-help", "connect-coordinator-stopped", "healthy-flink"],
      { redisUrl: REDIS_URL, parallel: 2 },
    );
    const by = new Map(rows.map((r) => [r.scenario, r]));
    expect(rows.every((r) => r.code === 0)).toBe(true);
    expect(by.get("competing-appends")).toMatchObject({
      would: "raise-commit-retries",
      matched: true,
      fixed: true,
    });
    expect(by.get("autopilot-retries-do-not-help")).toMatchObject({
      would: "raise-commit-retries",
      matched: true,
      fixed: false,
    });
    // A connector restart is not reversible: left to people, with the reason.
    expect(by.get("connect-coordinator-stopped")).toMatchObject({
      refused: expect.stringMatching(/reversible|policy/),
    });
    expect(by.get("healthy-flink")?.would).toBeUndefined();
    const lines = shadowLines(rows);
    expect(lines["agreement raise-commit-retries"]).toBe("2 of 2 matched, 1 of 2 fixed");
    expect(lines["competing-appends"]).toMatch(
      /^would apply raise-commit-retries; people did the same; it fixed it; fixed by /,
    );
  });
});
