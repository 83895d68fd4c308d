import { describe, expect, it } from "vitest";
import { exactId, recordExactIds, withExactIds } from "../../../src/adapters/evidence/exact-ids.js";
import { protectSnapshotIds } from "../../../src/adapters/evidence/snapshot-ids.js";

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

describe("exact ids recorded while a body passes through", () => {
  it("maps the rounded numbers JSON.parse produces back to the exact digits", async () => {
    const text =
      '{"current-snapshot-id":3497810964824022504,"snapshots":[{"snapshot-id":9223372036854775807}]}';
    const ids = await withExactIds(async () => {
      expect(recordExactIds(text)).toBe(true);
      const parsed = JSON.parse(text) as {
        "current-snapshot-id": number;
        snapshots: { "snapshot-id": number }[];
      };
      return [exactId(parsed["current-snapshot-id"]), exactId(parsed.snapshots[0]?.["snapshot-id"] ?? 0)];
    });
    expect(ids).toEqual(["3497810964824022504", "9223372036854775807"]);
  });

  it("refuses when two ids round to the same number, so the caller quotes them instead", async () => {
    const text = '{"snapshots":[{"snapshot-id":9007199254740993},{"snapshot-id":9007199254740992}]}';
    const recorded = await withExactIds(async () => recordExactIds(text));
    expect(recorded).toBe(false);
    const quoted = JSON.parse(protectSnapshotIds(text)) as { snapshots: { "snapshot-id": string }[] };
    expect(quoted.snapshots.map((s) => s["snapshot-id"])).toEqual(["9007199254740993", "9007199254740992"]);
  });

  it("records nothing outside a catalog call's scope", () => {
    expect(recordExactIds('{"snapshot-id":9223372036854775807}')).toBe(false);
    expect(exactId(42)).toBe("42");
  });
});
