import { describe, expect, it } from "vitest";
import {
  formatTableName,
  isValidTableName,
  parseTableName,
  sanitizeForMetric,
} from "../../src/core/table-name.js";
import { CodedError, ErrorCode } from "../../src/errors.js";

describe("parseTableName", () => {
  it.each([
    ["db.events", ["db"], "events"],
    ["  a.b.events  ", ["a", "b"], "events"],
    ["raw-zone.click_stream-v2", ["raw-zone"], "click_stream-v2"],
  ])("parses %j", (input, namespace, name) => {
    expect(parseTableName(input)).toEqual({ namespace, name });
  });

  it.each([
    ["", "empty"],
    ["events", "no namespace"],
    ["db..events", "empty level"],
    [".db.events", "empty level"],
    ["db.events.", "empty level"],
    ["../etc.passwd", "empty level"],
    ["db/../events.x", "path separator"],
    ["db.ev%2Fents", "percent-encoded"],
    ["db.'events'", "quote"],
    ['db."events"', "quote"],
    ["db.`events`", "quote"],
    ["db.ev ents", "whitespace"],
    ["db.ev\tents", "whitespace"],
    ["db.ev\u0000ents", "control character"],
    ["db.événements", "not allowed"],
    [`db.${"x".repeat(260)}`, "longer than 255"],
  ])("rejects %j (%s)", (input, problem) => {
    let caught: unknown;
    try {
      parseTableName(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CodedError);
    const coded = caught as CodedError;
    expect(coded.code).toBe(ErrorCode.TableNameInvalid);
    expect(coded.message).toContain(problem);
    expect(coded.hint).toContain("db.events");
    expect(coded.message).not.toContain("\u0000");
  });

  it("round-trips through formatTableName", () => {
    expect(formatTableName(parseTableName("a.b.events"))).toBe("a.b.events");
    expect(isValidTableName("db.events")).toBe(true);
    expect(isValidTableName("db/events")).toBe(false);
  });
});

describe("sanitizeForMetric", () => {
  it("replaces Flink's filtered characters with _", () => {
    expect(sanitizeForMetric("iceberg.db.events")).toBe("iceberg_db_events");
    expect(sanitizeForMetric("iceberg.db.events: Committer")).toBe("iceberg_db_events__Committer");
    expect(sanitizeForMetric("a,b c")).toBe("a_b_c");
  });
});
