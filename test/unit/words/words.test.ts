// Every id people can meet has words, and the one duration and the one clock read the same
// everywhere: the thread, the card, the reports and the postmortem take them from here.

import { describe, expect, it } from "vitest";
import { FINDING_IDS, SOURCE_NAMES, STEP_IDS, WRITER_KINDS } from "../../../src/core/ids.js";
import { utcDateTime, utcDay, utcHourMinute, utcTime, utcWhen } from "../../../src/core/words/clock.js";
import { formatDuration, formatInterval } from "../../../src/core/words/duration.js";
import {
  FINDING_WORDS,
  findingWords,
  SOURCE_WORDS,
  STEP_WORDS,
  sourceWords,
  stepWords,
  WRITER_KIND_WORDS,
  writerWords,
} from "../../../src/core/words/labels.js";

const ALL_IDS = [...FINDING_IDS, ...STEP_IDS];
const HYPHENATED = ALL_IDS.filter((id) => id.includes("-"));

describe("words for every id", () => {
  it.each([
    ["finding", FINDING_IDS, FINDING_WORDS],
    ["step", STEP_IDS, STEP_WORDS],
    ["source kind", SOURCE_NAMES, SOURCE_WORDS],
    ["writer kind", WRITER_KINDS, WRITER_KIND_WORDS],
  ] as const)("has words for every %s id and none for an unknown one", (_, ids, table) => {
    for (const id of ids) expect((table as Record<string, string>)[id]?.trim(), id).toBeTruthy();
    expect(Object.keys(table).sort()).toEqual([...ids].sort());
  });

  it("never uses an id as its own words, nor names another id", () => {
    const words = [...Object.values(FINDING_WORDS), ...Object.values(STEP_WORDS)];
    for (const text of words) for (const id of HYPHENATED) expect(text).not.toContain(id);
  });

  it("gives each finding and each step words of its own", () => {
    expect(new Set(Object.values(FINDING_WORDS)).size).toBe(FINDING_IDS.length);
    expect(new Set(Object.values(STEP_WORDS)).size).toBe(STEP_IDS.length);
  });

  it("names findings, steps, sources and writers", () => {
    expect(findingWords("writer-idle")).toBe("writer quiet as expected");
    expect(stepWords("raise-commit-retries")).toBe("raise commit retries");
    expect(sourceWords("flink")).toBe("Flink REST API");
    expect(sourceWords("flink", "east")).toBe("Flink REST API (east)");
    expect(writerWords("connect", "events-sink")).toBe("connector events-sink");
  });
});

describe("formatDuration", () => {
  it("keeps seconds only while they matter", () => {
    expect(formatDuration(0)).toBe("0 s");
    expect(formatDuration(-5_000)).toBe("0 s");
    expect(formatDuration(45_000)).toBe("45 s");
    expect(formatDuration(4 * 60_000 + 30_000)).toBe("4 min 30 s");
    expect(formatDuration(5 * 60_000)).toBe("5 min");
    expect(formatDuration(55 * 60_000 + 20_000)).toBe("55 min");
    expect(formatDuration(125 * 60_000)).toBe("2 h 5 min");
    expect(formatDuration(2 * 3_600_000)).toBe("2 h");
    expect(formatDuration((3 * 24 + 4) * 3_600_000)).toBe("3 d 4 h");
  });

  it("reads a chosen interval in tenths below ten seconds", () => {
    expect(formatInterval(500)).toBe("0.5 s");
    expect(formatInterval(1_000)).toBe("1 s");
    expect(formatInterval(30_000)).toBe("30 s");
    expect(formatInterval(5 * 60_000)).toBe("5 min");
  });
});

describe("the UTC clock", () => {
  const t = Date.parse("2026-11-29T09:12:40Z");

  it("writes the time, the day and both", () => {
    expect(utcHourMinute(t)).toBe("09:12");
    expect(utcTime(t)).toBe("09:12 UTC");
    expect(utcDay(t)).toBe("2026-11-29");
    expect(utcDateTime(t)).toBe("2026-11-29 09:12 UTC");
  });

  it("adds the date only when the day differs", () => {
    expect(utcWhen(t, t + 3_600_000)).toBe("09:12 UTC");
    expect(utcWhen(t, t + 86_400_000)).toBe("2026-11-29 09:12 UTC");
    expect(utcWhen(t, Number.NaN)).toBe("2026-11-29 09:12 UTC");
  });
});
