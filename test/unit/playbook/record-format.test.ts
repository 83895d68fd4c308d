// The walk record's stored format: the previous format migrates, the current one validates, a
// newer one (fields added) still reads after a rollback, and anything else is refused by name.
import { describe, expect, it } from "vitest";
import { readWalkRecord, WALK_FORMAT } from "../../../src/core/playbook/record-format.js";

const record = {
  incidentId: "inc-7",
  table: "db.events",
  channel: "C0INC",
  walk: { table: "db.events", playbookId: "commit-conflict", status: "active", startedAtMs: 1, history: [] },
  proposals: [],
  applySeq: 0,
  revertSeq: 0,
};

describe("readWalkRecord", () => {
  it("migrates the previous format (no format field) to the current one", () => {
    expect(readWalkRecord(record, "inc-7")).toEqual({ ...record, format: WALK_FORMAT });
  });

  it("reads a newer format whose fields it knows, keeping what it does not", () => {
    const newer = { ...record, format: WALK_FORMAT + 1, addedLater: { x: 1 } };
    expect(readWalkRecord(newer, "inc-7")).toMatchObject({ addedLater: { x: 1 }, format: WALK_FORMAT + 1 });
  });

  it("refuses an invalid record or an unknown old format, naming the incident and the field", () => {
    expect(() => readWalkRecord({ ...record, walk: { ...record.walk, status: "half" } }, "inc-7")).toThrow(
      /walk of inc-7 cannot be read: walk\.status/,
    );
    expect(() => readWalkRecord({ ...record, format: 0 }, "inc-7")).toThrow(/format 0/);
    expect(() => readWalkRecord("text", "inc-7")).toThrow(/not an object/);
  });
});
