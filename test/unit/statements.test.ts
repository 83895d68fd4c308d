import { describe, expect, it } from "vitest";
import {
  qualifiedTable,
  quoteIdentifier,
  quoteLiteral,
  renderDropBranch,
  renderExpireSnapshots,
  renderRewriteDataFiles,
  renderRewritePositionDeleteFiles,
  renderSetProperties,
  renderSnapshotsQuery,
  renderUnsetProperties,
} from "../../src/core/statements.js";
import { CodedError } from "../../src/errors.js";

const events = { namespace: ["db"], name: "events" };

describe("identifier and literal quoting", () => {
  it("leaves plain identifiers bare and backticks the rest", () => {
    expect(quoteIdentifier("events")).toBe("events");
    expect(quoteIdentifier("raw-zone")).toBe("`raw-zone`");
    expect(quoteIdentifier("order")).toBe("`order`");
    expect(quoteIdentifier("2026_events")).toBe("`2026_events`");
  });

  it.each(["ev`ents", "events; DROP TABLE x", "a.b", "", "e'v", "ev ents", "ev\nents"])(
    "rejects hostile identifier %j",
    (id) => {
      expect(() => quoteIdentifier(id)).toThrow(CodedError);
    },
  );

  it("doubles single quotes in literals", () => {
    expect(quoteLiteral("it's")).toBe("'it''s'");
    expect(quoteLiteral("'; DROP TABLE t; --")).toBe("'''; DROP TABLE t; --'");
  });

  it("refuses backslashes and control characters in literals", () => {
    expect(() => quoteLiteral("a\\'")).toThrow(CodedError);
    expect(() => quoteLiteral("a\nb")).toThrow(CodedError);
  });

  it("qualifies tables with an optional catalog", () => {
    expect(qualifiedTable(events, "prod")).toBe("prod.db.events");
    expect(qualifiedTable({ namespace: ["a", "raw-zone"], name: "t" })).toBe("a.`raw-zone`.t");
  });
});

describe("statements", () => {
  it("renders ALTER TABLE ... SET TBLPROPERTIES", () => {
    expect(
      renderSetProperties({ table: events, catalog: "prod" }, [
        ["commit.retry.num-retries", "10"],
        ["commit.retry.min-wait-ms", "1000"],
      ]),
    ).toBe(
      "ALTER TABLE prod.db.events SET TBLPROPERTIES (\n  'commit.retry.num-retries' = '10',\n  'commit.retry.min-wait-ms' = '1000'\n);",
    );
  });

  it("escapes property values and rejects bad keys", () => {
    expect(renderSetProperties({ table: events }, [["comment", "Bob's table"]])).toContain(
      "'comment' = 'Bob''s table'",
    );
    expect(() => renderSetProperties({ table: events }, [["a' = 'b", "x"]])).toThrow(CodedError);
    expect(() => renderSetProperties({ table: events }, [])).toThrow(CodedError);
  });

  it("renders ALTER TABLE ... UNSET TBLPROPERTIES with quoted names and keys", () => {
    expect(
      renderUnsetProperties({ table: { namespace: ["raw-zone"], name: "order" }, catalog: "prod" }, [
        "write.spark.fanout.enabled",
        "commit.retry.num-retries",
      ]),
    ).toBe(
      "ALTER TABLE prod.`raw-zone`.`order` UNSET TBLPROPERTIES (\n  'write.spark.fanout.enabled',\n  'commit.retry.num-retries'\n);",
    );
  });

  it("refuses bad keys and an empty key list when unsetting", () => {
    expect(() => renderUnsetProperties({ table: events }, ["a') , ('b"])).toThrow(CodedError);
    expect(() => renderUnsetProperties({ table: events }, [])).toThrow(CodedError);
  });

  it("renders rewrite_data_files sparing today's partition, with partial progress", () => {
    const sql = renderRewriteDataFiles({
      table: events,
      catalog: "prod",
      where: { column: "event_date", bound: { kind: "days-ago", days: 0 } },
    });
    expect(sql).toBe(
      "CALL prod.system.rewrite_data_files(\n  table => 'db.events',\n  where => 'event_date < current_date()',\n  options => map('partial-progress.enabled', 'true', 'partial-progress.max-commits', '10')\n);",
    );
  });

  it("renders hour bounds and quotes odd columns inside the where literal", () => {
    const sql = renderRewriteDataFiles({
      table: events,
      where: { column: "event-ts", bound: { kind: "hours-ago", hours: 2 } },
    });
    expect(sql).toContain("where => '`event-ts` < current_timestamp() - INTERVAL 2 HOURS'");
    expect(sql).toContain("CALL spark_catalog.system.rewrite_data_files(");
    expect(() =>
      renderRewriteDataFiles({
        table: events,
        where: { column: "x", bound: { kind: "days-ago", days: -1 } },
      }),
    ).toThrow(CodedError);
  });

  it("renders expire_snapshots, position-delete rewrite, snapshots query and drop branch", () => {
    const at = Date.UTC(2026, 10, 24, 9, 0, 0);
    expect(renderExpireSnapshots({ table: events, catalog: "lake", olderThanMs: at, retainLast: 50 })).toBe(
      "CALL lake.system.expire_snapshots(\n  table => 'db.events',\n  older_than => TIMESTAMP '2026-11-24 09:00:00 UTC',\n  retain_last => 50\n);",
    );
    expect(() => renderExpireSnapshots({ table: events, retainLast: 0 })).toThrow(CodedError);
    expect(renderRewritePositionDeleteFiles({ table: events, catalog: "lake" })).toBe(
      "CALL lake.system.rewrite_position_delete_files(table => 'db.events');",
    );
    const query = renderSnapshotsQuery({ table: events, catalog: "prod", fromMs: at, toMs: at + 3_600_000 });
    expect(query).toContain("FROM prod.db.events.snapshots");
    // Writers of every kind: both Connect sink generations' commit ids, Trino, the engine name.
    expect(query).toContain(
      "coalesce(summary['kafka.connect.commit-id'], summary['kafka.connect.commitId'])",
    );
    expect(query).toContain("summary['trino_query_id'] AS trino_query");
    expect(query).toContain(
      "WHERE committed_at >= TIMESTAMP '2026-11-24 09:00:00 UTC' AND committed_at <= TIMESTAMP '2026-11-24 10:00:00 UTC'",
    );
    expect(renderDropBranch({ table: events }, "audit_20261109")).toBe(
      "ALTER TABLE db.events DROP BRANCH audit_20261109;",
    );
    expect(() => renderDropBranch({ table: events }, "x; DROP TABLE y")).toThrow(CodedError);
  });
});
