import { describe, expect, it } from "vitest";
import { ErrorCode, isCodedError } from "../../../src/errors.js";
import { suggest, tableRefWithoutCatalog } from "../../../src/services/investigate/resolve.js";

const tables = [
  { namespace: ["db"], name: "events" },
  { namespace: ["db"], name: "clicks" },
  { namespace: ["analytics", "web"], name: "page_views" },
];

describe("table name suggestions", () => {
  it("offers the closest names for slips of case and spelling", () => {
    expect(suggest("db.event", tables)).toEqual(["db.events"]);
    expect(suggest("DB.Events", tables)).toEqual(["db.events"]);
    expect(suggest("analytics_web_pageviews", tables)).toEqual(["analytics.web.page_views"]);
  });

  it("offers nothing when no name is close", () => {
    expect(suggest("warehouse.orders", tables)).toEqual([]);
  });
});

describe("table names without a catalog", () => {
  it("takes dotted names as namespace.table and metric forms as a bare name", () => {
    expect(tableRefWithoutCatalog("a.b.events")).toEqual({ namespace: ["a", "b"], name: "events" });
    expect(tableRefWithoutCatalog(" iceberg_db_events ")).toEqual({
      namespace: [],
      name: "iceberg_db_events",
    });
  });

  it.each(["db/events", "x".repeat(300), "ev'ents", "a\u0000b"])("refuses %j", (input) => {
    let thrown: unknown;
    try {
      tableRefWithoutCatalog(input);
    } catch (error) {
      thrown = error;
    }
    expect(isCodedError(thrown, ErrorCode.TableNameInvalid)).toBe(true);
  });
});
