import { describe, expect, it } from "vitest";
import { TableMetadataSchema, toTableEvidence } from "../../../src/adapters/evidence/iceberg-schemas.js";
import { protectSnapshotIds, quoteSnapshotIdBytes } from "../../../src/adapters/evidence/snapshot-ids.js";

describe("protectSnapshotIds", () => {
  it("keeps 64-bit ids exact in every place they appear", () => {
    const text = `{"current-snapshot-id": 3497810964824022504,
      "snapshots":[{"snapshot-id":9223372036854775807,"parent-snapshot-id":-9223372036854775808}],
      "snapshot-log":[{"timestamp-ms":1,"snapshot-id":3497810964824022504}],
      "refs":{"main":{"snapshot-id" : 3497810964824022504,"type":"branch"}}}`;
    const parsed = JSON.parse(protectSnapshotIds(text));
    expect(parsed["current-snapshot-id"]).toBe("3497810964824022504");
    expect(parsed.snapshots[0]["snapshot-id"]).toBe("9223372036854775807");
    expect(parsed.snapshots[0]["parent-snapshot-id"]).toBe("-9223372036854775808");
    expect(parsed["snapshot-log"][0]["snapshot-id"]).toBe("3497810964824022504");
    expect(parsed.refs.main["snapshot-id"]).toBe("3497810964824022504");
  });

  it("leaves short ids, other keys and text inside strings alone", () => {
    const text = `{"current-snapshot-id":-1,"sequence-number":12345678901234567,
      "summary":{"note":"\\"snapshot-id\\": 1234567890123456789"}}`;
    const parsed = JSON.parse(protectSnapshotIds(text));
    expect(parsed["current-snapshot-id"]).toBe(-1);
    expect(typeof parsed["sequence-number"]).toBe("number");
    expect(parsed.summary.note).toBe('"snapshot-id": 1234567890123456789');
  });
});

describe("protectSnapshotIds on large bodies", () => {
  it("quotes every long id of a many-snapshot body and nothing else", () => {
    const snapshots = Array.from(
      { length: 2000 },
      (_, i) =>
        `{"snapshot-id":${9_000_000_000_000_000_000n + BigInt(i)},"timestamp-ms":${1_700_000_000_000 + i}}`,
    );
    const parsed = JSON.parse(protectSnapshotIds(`{"snapshots":[${snapshots.join(",")}]}`));
    expect(parsed.snapshots).toHaveLength(2000);
    expect(parsed.snapshots[1999]["snapshot-id"]).toBe("9000000000000001999");
    expect(parsed.snapshots[1999]["timestamp-ms"]).toBe(1_700_000_001_999);
  });

  it("returns the body untouched when no id needs quoting", () => {
    const text = '{"current-snapshot-id":-1,"snapshots":[]}';
    expect(protectSnapshotIds(text)).toBe(text);
  });
});

describe("ids above 2^53 through the catalog schema", () => {
  it("keeps every id exact from the text to the evidence", () => {
    const above = "9007199254740993"; // 2^53 + 1: JSON.parse alone would read 9007199254740992
    const text = `{"format-version":2,"table-uuid":"u","location":"s3://b/t","last-updated-ms":2,
      "current-snapshot-id":${above},"refs":{"main":{"snapshot-id":${above},"type":"branch"}},
      "snapshots":[{"snapshot-id":9007199254740992,"timestamp-ms":1,"summary":{"operation":"append"}},
        {"snapshot-id":${above},"parent-snapshot-id":9007199254740992,"timestamp-ms":2,
         "summary":{"operation":"append"}}],
      "snapshot-log":[{"snapshot-id":${above},"timestamp-ms":2}]}`;
    const metadata = TableMetadataSchema.parse(JSON.parse(protectSnapshotIds(text)));
    const evidence = toTableEvidence({ namespace: ["db"], name: "t" }, metadata);
    expect(evidence.currentSnapshotId).toBe(above);
    expect(evidence.refs.main?.snapshotId).toBe(above);
    expect(evidence.snapshots.map((s) => s.snapshotId)).toEqual(["9007199254740992", above]);
    expect(evidence.snapshots[1]?.parentSnapshotId).toBe("9007199254740992");
    expect(evidence.snapshotLog[0]?.snapshotId).toBe(above);
  });

  it("writes short ids out as digits and reports a fractional id by its field", () => {
    const ok = TableMetadataSchema.parse(
      JSON.parse(
        protectSnapshotIds(
          '{"format-version":1,"location":"l","last-updated-ms":1,"current-snapshot-id":42}',
        ),
      ),
    );
    expect(ok["current-snapshot-id"]).toBe("42");
    const bad = TableMetadataSchema.safeParse(
      JSON.parse(
        protectSnapshotIds(
          '{"format-version":1,"location":"l","last-updated-ms":1,"current-snapshot-id":1234567890123456.5}',
        ),
      ),
    );
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["current-snapshot-id"]);
  });
});

describe("quoting ids in the body's bytes before they are decoded", () => {
  const quoteBytes = (text: string) => {
    const bytes = Buffer.from(text);
    const buffer = Buffer.alloc(bytes.length + quoteSnapshotIdBytes.slack(bytes.length), "#");
    bytes.copy(buffer);
    const size = quoteSnapshotIdBytes.apply(buffer, bytes.length);
    return size === undefined ? undefined : buffer.toString("utf8", 0, size);
  };

  it("gives the same text as quoting the decoded string", () => {
    const text = `{"current-snapshot-id": 3497810964824022504,"name":"é ✓",
      "snapshots":[{"snapshot-id":9223372036854775807,"parent-snapshot-id":-9223372036854775808,"x":1.5}],
      "summary":{"note":"\\"snapshot-id\\": 1234567890123456789"},"n":12345678901234567,
      "refs":{"main":{"snapshot-id" : 3497810964824022504}},"odd":{"snapshot-id":1234567890123456.5},
      "snapshot-log":[{"timestamp-ms":1,"snapshot-id":3497810964824022504}]}`;
    expect(quoteBytes(text)).toBe(protectSnapshotIds(text));
    expect(JSON.parse(quoteBytes(text) ?? "").refs.main["snapshot-id"]).toBe("3497810964824022504");
  });

  it("leaves the bytes alone when the quotes do not fit", () => {
    const text = '{"snapshot-id":9223372036854775807}';
    const buffer = Buffer.from(text);
    expect(quoteSnapshotIdBytes.apply(buffer, buffer.length)).toBeUndefined();
    expect(buffer.toString()).toBe(text);
  });
});
