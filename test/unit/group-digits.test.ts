// Counts in messages are grouped without the locale data; they must read exactly as
// toLocaleString("en-US") would write them, for every number a message can carry.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { groupDigits, plural } from "../../src/core/plural.js";

describe("groupDigits", () => {
  it("writes every number as toLocaleString('en-US') does", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.maxSafeNat(), fc.double()), (n) => {
        expect(groupDigits(n)).toBe(n.toLocaleString("en-US"));
      }),
      { numRuns: 2000 },
    );
    for (const n of [0, -0, 1, 999, 1000, -1000, 999_999, 1_000_000, 2 ** 53, 1.5, Number.NaN, Infinity]) {
      expect(groupDigits(n)).toBe(n.toLocaleString("en-US"));
    }
  });

  it("groups the counts of counted nouns", () => {
    expect(plural(12_345, "snapshot")).toBe("12,345 snapshots");
    expect(plural(1, "child", "children")).toBe("1 child");
  });
});
