// The walk record's stored format: the previous format migrates, the current one validates, a
// newer one (fields added) still reads after a rollback, and anything else is refused by name.
import { describe, expect, it } from "vitest";
import { peopleOnWalk, type RemediationRecord } from "../../../src/core/remediation/record.js";
import {
  assertWritable,
  readRemediationRecord,
  WALK_FORMAT,
} from "../../../src/core/remediation/record-format.js";

const record = {
  incidentId: "inc-7",
  table: "db.events",
  channel: "C0INC",
  walk: { table: "db.events", playbookId: "commit-conflict", status: "active", startedAtMs: 1, history: [] },
  proposals: [],
  applySeq: 0,
  revertSeq: 0,
};

describe("readRemediationRecord", () => {
  it("migrates the previous format (no format field) to the current one", () => {
    expect(readRemediationRecord(record, "inc-7")).toEqual({ ...record, format: WALK_FORMAT });
  });

  it("reads a newer format whose fields it knows, keeping what it does not", () => {
    const newer = { ...record, format: WALK_FORMAT + 1, addedLater: { x: 1 } };
    expect(readRemediationRecord(newer, "inc-7")).toMatchObject({
      addedLater: { x: 1 },
      format: WALK_FORMAT + 1,
    });
  });

  it("refuses an invalid record or an unknown old format, naming the incident and the field", () => {
    expect(() =>
      readRemediationRecord({ ...record, walk: { ...record.walk, status: "half" } }, "inc-7"),
    ).toThrow(/walk of inc-7 cannot be read: walk\.status/);
    expect(() => readRemediationRecord({ ...record, format: 0 }, "inc-7")).toThrow(/format 0/);
    expect(() => readRemediationRecord("text", "inc-7")).toThrow(/not an object/);
  });
});

describe("nested fields and newer formats", () => {
  it("refuses damaged memory or open items, naming the field", () => {
    expect(() =>
      readRemediationRecord(
        { ...record, memory: { earlierIncidentId: "inc-1", didNotHelp: [null] } },
        "inc-7",
      ),
    ).toThrow(/memory\.didNotHelp\.0/);
    expect(() => readRemediationRecord({ ...record, openItems: [{ id: "x" }] }, "inc-7")).toThrow(
      /openItems\.0\.text/,
    );
  });

  it("never lets a newer format be written back, and says to upgrade", () => {
    const newer = readRemediationRecord({ ...record, format: 99 }, "inc-7");
    expect(() => assertWritable(newer)).toThrow(/format 99, newer than this release's 2/);
    try {
      assertWritable(newer);
    } catch (error) {
      expect(error).toMatchObject({
        code: "stored_record_invalid",
        hint: expect.stringContaining("upgrade"),
      });
    }
    expect(() => assertWritable(readRemediationRecord(record, "inc-7"))).not.toThrow();
  });
});

describe("peopleOnWalk", () => {
  it("names whoever asked for, approved, applied or skipped a step", () => {
    const run = (over: object) => ({
      stepId: "raise-commit-retries",
      phase: "applied",
      change: { kind: "manual", statement: "x" },
      proposedAtMs: 1,
      approvals: [],
      checksDone: 0,
      checksTotal: 3,
      intervalMs: 1000,
      checks: [],
      ...over,
    });
    const walk = readRemediationRecord(
      {
        ...record,
        walk: {
          ...record.walk,
          history: [run({ requestedBy: "U0ASK", skippedBy: "U0SKIP", phase: "skipped" })],
          current: run({ approvals: [{ user: "U0OK", confirmations: [], atMs: 2 }], appliedBy: "U0APPLY" }),
        },
      },
      "inc-7",
    ) as RemediationRecord;
    expect([...peopleOnWalk(walk)].sort()).toEqual(["U0APPLY", "U0ASK", "U0OK", "U0SKIP"]);
  });
});
