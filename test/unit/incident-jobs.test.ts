import { describe, expect, it } from "vitest";
import { createKeys } from "../../src/adapters/store/keys.js";
import { diagnoseJobId, idPart, slackJobId } from "../../src/core/jobs.js";

describe("job ids", () => {
  it("are the same for the same logical job, so BullMQ refuses duplicates", () => {
    expect(diagnoseJobId({ kind: "incident", incidentId: "inc-7", n: 2 })).toBe("diagnose-inc-7-2");
    expect(slackJobId({ kind: "diagnosis", incidentId: "inc-7", n: 2 })).toBe("diagnosis-inc-7-2");
    expect(slackJobId({ kind: "root", incidentId: "inc-7" })).toBe("root-inc-7");
    expect(slackJobId({ kind: "card", incidentId: "inc-7", version: 3 })).toBe("card-inc-7-3");
  });

  it("never contain ':' whatever the input", () => {
    const ids = [
      diagnoseJobId({
        kind: "command",
        command: "audit",
        table: "db.events",
        channel: "C1",
        user: "U1",
        requestId: "123.456:789/../x",
      }),
      slackJobId({ kind: "note", incidentId: "inc:1", key: "a:b c", text: "t" }),
      slackJobId({
        kind: "command-result",
        key: "k:1",
        channel: "C1",
        result: { type: "audit", report: {} },
      }),
    ];
    for (const id of ids) expect(id).not.toContain(":");
    expect(idPart("x".repeat(500))).toHaveLength(120);
  });

  it("leave ephemeral replies without an id: they are per request and never deduplicated", () => {
    expect(
      slackJobId({ kind: "ephemeral", channel: "C1", user: "U1", reply: { kind: "status" } }),
    ).toBeUndefined();
  });
});

describe("Redis keys", () => {
  it("share one hash tag so Lua scripts stay in one Cluster slot", () => {
    const keys = createKeys("ns");
    const all = [
      keys.openByTable("db.events"),
      keys.incident("inc-1"),
      keys.sequence(),
      keys.openSet(),
      keys.recentTables(),
    ];
    for (const key of all) expect(key.startsWith("{ns}:")).toBe(true);
  });
});
