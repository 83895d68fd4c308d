// Times as people read them: Slack date tokens outside code, the UTC clock inside code, and
// "20:30 UTC, 5 min ago" in a terminal.

import { describe, expect, it } from "vitest";
import { plainTimes, plainWhen, slackTimes, slackWhen } from "../../../src/adapters/render/times.js";
import { plural } from "../../../src/core/plural.js";
import { shownValue } from "../../../src/core/properties.js";

const NOW = Date.parse("2026-11-30T20:35:00Z");

describe("times at a glance", () => {
  it("says when in the terminal with the UTC clock and how long ago", () => {
    expect(plainWhen(Date.parse("2026-11-30T20:30:00Z"), NOW)).toBe("20:30 UTC, 5 min ago");
    expect(plainWhen(Date.parse("2026-11-29T18:35:00Z"), NOW)).toBe("2026-11-29 18:35 UTC, 1 d 2 h ago");
    expect(plainTimes("failed at 2026-11-30T20:34:40.941Z (flink)", NOW)).toBe(
      "failed at 20:34 UTC, just now (flink)",
    );
  });

  it("writes Slack date tokens, with the UTC time as fallback, and no token inside code", () => {
    expect(slackWhen(Date.parse("2026-11-30T20:30:00Z"), NOW)).toBe("<!date^1796070600^{time}|20:30 UTC>");
    expect(slackWhen(Date.parse("2026-11-29T20:30:00Z"), NOW)).toBe(
      "<!date^1796070600^{date_short_pretty} {time}|2026-11-29 20:30 UTC>".replace(
        "1796070600",
        "1795984200",
      ),
    );
    expect(slackTimes("at 2026-11-30T20:30:00Z; ```trace at 2026-11-30T20:30:00Z```", NOW)).toBe(
      "at <!date^1796070600^{time}|20:30 UTC>; ```trace at 20:30 UTC```",
    );
  });

  it("shows what an unset property means, and counts nouns", () => {
    expect(shownValue("commit.retry.num-retries", null)).toBe("unset (default 4)");
    expect(shownValue("iceberg.control.commit.interval-ms", null)).toBe("unset (default 300000)");
    expect(shownValue("some.other.key", null)).toBe("unset");
    expect(shownValue("commit.retry.num-retries", "10")).toBe("10");
    expect(plural(1, "commit")).toBe("1 commit");
    expect(plural(38, "commit")).toBe("38 commits");
    expect(plural(1_440, "snapshot")).toBe("1,440 snapshots");
  });
});
