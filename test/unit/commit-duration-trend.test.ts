// commit-duration-growing judged as a person reads a graph: slope and end-to-start ratio over the
// range, so one slow commit at the end or a noisy flat line does not fire it.

import { describe, expect, it } from "vitest";
import {
  isGrowing,
  MIN_RATIO,
  MIN_SLOPE_MS_PER_MIN,
} from "../../src/core/diagnosis/rules/commit-duration-growing.js";
import { trendOf } from "../../src/core/diagnosis/trend.js";

const STEP = 5 * 60_000;
const at = (values: number[]) => values.map((value, i) => ({ atMs: 1_700_000_000_000 + i * STEP, value }));

describe("trendOf", () => {
  it("measures the slope per minute and the end over the start", () => {
    const trend = trendOf(at([1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500]))!;
    expect(trend.slopePerMinute).toBeCloseTo(100, 6);
    expect(trend.start).toBe(1250);
    expect(trend.end).toBe(4250);
    expect(trend.ratio).toBeCloseTo(3.4, 6);
    expect(trend.spanMs).toBe(7 * STEP);
  });
});

describe("commit-duration-growing thresholds", () => {
  const cases: Array<{ name: string; values: number[]; grows: boolean }> = [
    { name: "the scenario's climb", values: [790, 840, 810, 820, 950, 2400, 5100, 9800, 18200], grows: true },
    { name: "a steady climb of 100 ms a minute", values: [1000, 1500, 2000, 2500, 3000, 3500], grows: true },
    { name: "a noisy flat line", values: [800, 950, 760, 900, 820, 880, 790, 940], grows: false },
    {
      name: "one slow commit at the end",
      values: [800, 820, 790, 810, 800, 830, 790, 805, 815, 800, 790, 5000],
      grows: false,
    },
    {
      name: "a slow drift under 50 ms a minute",
      values: [800, 900, 1000, 1100, 1200, 1300, 1400, 1500, 1600],
      grows: false,
    },
    { name: "too few samples", values: [800, 5000, 20000], grows: false },
    {
      name: "a fast climb from tiny values that stays under a second",
      values: [100, 200, 400, 600, 800, 900],
      grows: false,
    },
  ];
  for (const c of cases) {
    it(`${c.grows ? "fires" : "stays quiet"} for ${c.name}`, () => {
      expect(isGrowing(at(c.values))).toBe(c.grows);
    });
  }

  it("uses the documented thresholds", () => {
    expect(MIN_SLOPE_MS_PER_MIN).toBe(50);
    expect(MIN_RATIO).toBe(1.5);
  });
});
