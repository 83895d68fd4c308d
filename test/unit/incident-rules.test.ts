import { describe, expect, it } from "vitest";
import { matchKnownTable, resolveAlertTable } from "../../src/core/incident/alert-table.js";
import { closestMatch, editDistance } from "../../src/core/incident/closest-match.js";
import { parseCommandText } from "../../src/core/incident/command-text.js";
import { isOpenState, stateAfterDiagnosis } from "../../src/core/incident/model.js";

const writers = {
  tables: {
    "db.events": { flinkJobName: "events-ingest" },
    "db.orders": { connector: "orders-sink" },
  },
};
const known = ["db.events", "db.orders", "analytics.web.events"];

describe("which table an alert is about", () => {
  it.each([
    [{ table: "db.events" }, "db.events", "label"],
    [{ table: "iceberg.db.events" }, "db.events", "label"],
    [{ iceberg_table: "db.orders" }, "db.orders", "label"],
    [{ table: "iceberg_db_events" }, "db.events", "sanitised"],
    [{ table: "analytics_web_events" }, "analytics.web.events", "sanitised"],
    [{ job_name: "events-ingest" }, "db.events", "job_name"],
    [{ connector: "orders-sink" }, "db.orders", "connector"],
    [{ table: "db.unknown" }, "db.unknown", "label"],
  ])("%j -> %s via %s", (labels, table, via) => {
    expect(resolveAlertTable(labels, writers, known)).toEqual({ table, via });
  });

  it("prefers the table label over the writer labels", () => {
    expect(
      resolveAlertTable({ table: "db.orders", job_name: "events-ingest" }, writers, known),
    ).toMatchObject({
      table: "db.orders",
    });
  });

  it("says why when nothing names a table", () => {
    const result = resolveAlertTable({ alertname: "X", job_name: "someone-else" }, writers, known);
    expect(result.table).toBeUndefined();
    expect("reason" in result && result.reason).toMatch(/BOT_CONFIG/);
  });

  it("refuses a label that is neither a known table nor a valid name", () => {
    expect(resolveAlertTable({ table: "db/../../etc" }, writers, known).table).toBeUndefined();
  });

  it("picks the longest known tail for catalog-qualified names", () => {
    expect(matchKnownTable("cat.analytics.web.events", ["web.events", "analytics.web.events"])).toBe(
      "analytics.web.events",
    );
  });

  it("compares names as the catalog does: DB.EVENTS is the known db.events, one incident not two", () => {
    expect(resolveAlertTable({ table: "DB.EVENTS" }, writers, ["db.events"]).table).toBe("db.events");
    expect(resolveAlertTable({ table: "Iceberg.Db.Events" }, writers, ["db.events"]).table).toBe("db.events");
    // A case-sensitive catalog that holds both spellings: each keeps its own.
    expect(matchKnownTable("DB.EVENTS", ["db.events", "DB.EVENTS"])).toBe("DB.EVENTS");
    expect(matchKnownTable("Db.Events", ["db.events", "DB.EVENTS"])).toBeUndefined();
    expect(matchKnownTable("db.events", ["db.events", "db.events"])).toBe("db.events");
  });
});

describe("closest match", () => {
  it("measures edits", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("same", "same")).toBe(0);
  });

  it("suggests a near name and nothing for a far one", () => {
    expect(closestMatch("db.evnets", known)).toBe("db.events");
    expect(closestMatch("diagnsoe", ["diagnose", "audit", "status"])).toBe("diagnose");
    expect(closestMatch("zzzzzzzz", known)).toBeUndefined();
  });
});

describe("/iceberg command text", () => {
  it.each([
    ["diagnose db.events", { kind: "diagnose", table: "db.events" }],
    ["  AUDIT   db.events ", { kind: "audit", table: "db.events" }],
    ["status", { kind: "status" }],
    ["help", { kind: "help" }],
    ["", { kind: "help" }],
    ["history db.events", { kind: "history", table: "db.events" }],
  ])("%j", (text, expected) => {
    expect(parseCommandText(text)).toEqual(expected);
  });

  it("suggests the command for a typo", () => {
    expect(parseCommandText("diagnos db.events")).toEqual({
      kind: "usage-error",
      error: { kind: "unknown-command", input: "diagnos", suggestion: "diagnose" },
    });
  });

  it("asks for the missing table", () => {
    expect(parseCommandText("diagnose")).toEqual({
      kind: "usage-error",
      error: { kind: "missing-table", command: "diagnose" },
    });
  });

  it("explains an invalid table name with an example", () => {
    const parsed = parseCommandText("audit events");
    expect(parsed.kind).toBe("usage-error");
    if (parsed.kind !== "usage-error" || parsed.error.kind !== "failed") throw new Error("expected failed");
    expect(parsed.error.message).toMatch(/namespace/);
    expect(parsed.error.hint).toContain("/iceberg audit db.events");
  });

  it("rejects extra words", () => {
    expect(parseCommandText("status now").kind).toBe("usage-error");
    expect(parseCommandText("diagnose db.a db.b").kind).toBe("usage-error");
  });
});

describe("incident states", () => {
  it("waits for approval only when a step is proposed", () => {
    expect(stateAfterDiagnosis(true)).toBe("awaiting-approval");
    expect(stateAfterDiagnosis(false)).toBe("open");
  });

  it("counts resolved and stopped as closed", () => {
    expect(isOpenState("resolved")).toBe(false);
    expect(isOpenState("stopped")).toBe(false);
    expect(isOpenState("stalled")).toBe(true);
    expect(isOpenState("diagnosing")).toBe(true);
  });
});
