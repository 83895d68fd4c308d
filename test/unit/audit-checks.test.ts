// Table-driven audit checks: each check's pass/warn/fail on a crafted table, the values it read
// (null when unset) and the one statement that fixes it.

import { describe, expect, it } from "vitest";
import { AUDIT_RULES, audit } from "../../src/core/audit/audit.js";
import type { Evidence } from "../../src/core/evidence/model.js";
import { AUDIT_CHECK_IDS, type AuditCheckId } from "../../src/core/ids.js";
import { AuditReportSchema } from "../../src/core/report/schema.js";
import {
  DAY,
  evidence,
  flinkJob,
  HEALTHY_BASELINES,
  HOUR,
  MIN,
  NOW,
  SPARK_APP,
  series,
  snap,
  type TableOptions,
  table,
} from "../support/evidence-builders.js";

const withTable = (options: TableOptions): Evidence => evidence({ table: table(options) });
const hourlySpark = () => series(2 * DAY, 30 * MIN, HOUR, { by: { spark: SPARK_APP } });
const flinkEvery5m = () => series(DAY, 2 * MIN, 5 * MIN);

interface Case {
  id: AuditCheckId;
  name: string;
  evidence: () => Evidence;
  status: "pass" | "warn" | "fail";
  /** A value the check must report. */
  value?: [string, string | null];
  /** Text the fix must contain. */
  fix?: string;
}

const CASES: Case[] = [
  {
    id: "retry-budget",
    name: "retries lowered below the default",
    evidence: () => withTable({ snapshots: hourlySpark(), properties: { "commit.retry.num-retries": "2" } }),
    status: "fail",
    value: ["commit.retry.num-retries", "2"],
    fix: "'commit.retry.num-retries' = '10'",
  },
  {
    id: "retry-budget",
    name: "defaults on a table with two committers",
    evidence: () => withTable({ snapshots: [...flinkEvery5m(), ...hourlySpark()] }),
    status: "warn",
    value: ["commit.retry.num-retries", null],
    fix: "ALTER TABLE db.events SET TBLPROPERTIES",
  },
  {
    id: "retry-budget",
    name: "raised retries on a shared table",
    evidence: () =>
      withTable({
        snapshots: [...flinkEvery5m(), ...hourlySpark()],
        properties: { "commit.retry.num-retries": "10" },
      }),
    status: "pass",
  },
  {
    id: "isolation-level",
    name: "snapshot isolation for MERGE",
    evidence: () => withTable({ properties: { "write.merge.isolation-level": "snapshot" } }),
    status: "warn",
    value: ["write.merge.isolation-level", "snapshot"],
    fix: "'write.merge.isolation-level' = 'serializable'",
  },
  {
    id: "isolation-level",
    name: "a value Iceberg rejects",
    evidence: () => withTable({ properties: { "write.delete.isolation-level": "read-committed" } }),
    status: "fail",
  },
  {
    id: "isolation-level",
    name: "defaults",
    evidence: () => withTable({}),
    status: "pass",
    value: ["write.update.isolation-level", null],
  },
  {
    id: "write-mode",
    name: "frequent copy-on-write MERGEs",
    evidence: () =>
      withTable({
        snapshots: series(3 * DAY, HOUR, 6 * HOUR, {
          op: "overwrite",
          by: { spark: SPARK_APP },
          summary: { "deleted-data-files": "10" },
        }),
      }),
    status: "warn",
    fix: "'write.merge.mode' = 'merge-on-read'",
  },
  {
    id: "write-mode",
    name: "merge-on-read on format v1",
    evidence: () => withTable({ formatVersion: 1, properties: { "write.delete.mode": "merge-on-read" } }),
    status: "fail",
    value: ["format-version", "1"],
  },
  {
    id: "write-mode",
    name: "append-only table",
    evidence: () => withTable({ snapshots: flinkEvery5m() }),
    status: "pass",
  },
  {
    id: "delete-file-compaction",
    name: "600 delete files, never compacted",
    evidence: () =>
      withTable({
        snapshots: [snap(2 * DAY, { op: "overwrite", summary: { "total-delete-files": "600" } })],
      }),
    status: "fail",
    value: ["total-delete-files", "600"],
    fix: "CALL spark_catalog.system.rewrite_position_delete_files(table => 'db.events');",
  },
  {
    id: "delete-file-compaction",
    name: "some delete files, compaction 10 days ago",
    evidence: () =>
      withTable({
        snapshots: [
          snap(10 * DAY, { op: "replace", by: { spark: SPARK_APP } }),
          snap(DAY, { op: "overwrite", summary: { "total-delete-files": "40" } }),
        ],
      }),
    status: "warn",
  },
  {
    id: "delete-file-compaction",
    name: "delete files compacted yesterday",
    evidence: () =>
      withTable({
        snapshots: [
          snap(2 * DAY, { op: "overwrite", summary: { "total-delete-files": "40" } }),
          snap(DAY, { op: "replace", summary: { "total-delete-files": "40" } }),
        ],
      }),
    status: "pass",
  },
  {
    id: "distribution-mode",
    name: "partitioned, unset",
    evidence: () => withTable({}),
    status: "warn",
    value: ["write.distribution-mode", null],
    fix: "'write.distribution-mode' = 'hash'",
  },
  {
    id: "distribution-mode",
    name: "sorted table with none",
    evidence: () => withTable({ sortOrderFieldCount: 1, properties: { "write.distribution-mode": "none" } }),
    status: "warn",
    fix: "'write.distribution-mode' = 'range'",
  },
  {
    id: "distribution-mode",
    name: "unpartitioned",
    evidence: () => withTable({ partitionFields: [] }),
    status: "pass",
  },
  {
    id: "distribution-mode",
    name: "hash",
    evidence: () => withTable({ properties: { "write.distribution-mode": "hash" } }),
    status: "pass",
  },
  {
    id: "target-file-size",
    name: "4 MiB target",
    evidence: () => withTable({ properties: { "write.target-file-size-bytes": "4194304" } }),
    status: "fail",
    fix: "'write.target-file-size-bytes' = '536870912'",
  },
  {
    id: "target-file-size",
    name: "thousands of 2 MiB files",
    evidence: () =>
      withTable({
        snapshots: [
          snap(HOUR, {
            summary: { "total-data-files": "40000", "total-files-size": String(40000 * 2 * 1024 * 1024) },
          }),
        ],
      }),
    status: "warn",
    fix: "where => 'event_date < current_date()'",
  },
  {
    id: "target-file-size",
    name: "defaults",
    evidence: () => withTable({ snapshots: flinkEvery5m() }),
    status: "pass",
  },
  {
    id: "metadata-cleanup",
    name: "cleanup not enabled",
    evidence: () => withTable({}),
    status: "warn",
    value: ["write.metadata.delete-after-commit.enabled", null],
    fix: "'write.metadata.delete-after-commit.enabled' = 'true'",
  },
  {
    id: "metadata-cleanup",
    name: "enabled",
    evidence: () => withTable({ properties: { "write.metadata.delete-after-commit.enabled": "true" } }),
    status: "pass",
  },
  {
    id: "snapshot-expiry",
    name: "expiry after 30 minutes keeping one",
    evidence: () =>
      withTable({
        properties: {
          "history.expire.max-snapshot-age-ms": "1800000",
          "history.expire.min-snapshots-to-keep": "1",
        },
      }),
    status: "fail",
    fix: "'history.expire.min-snapshots-to-keep' = '100'",
  },
  {
    id: "snapshot-expiry",
    name: "expiry never ran",
    evidence: () => withTable({ snapshots: series(40 * DAY, 6 * HOUR, DAY, { by: { spark: SPARK_APP } }) }),
    status: "warn",
    fix: `older_than => TIMESTAMP '${new Date(NOW - 5 * DAY).toISOString().slice(0, 19).replace("T", " ")} UTC'`,
  },
  {
    id: "snapshot-expiry",
    name: "recent history only",
    evidence: () => withTable({ snapshots: flinkEvery5m() }),
    status: "pass",
  },
  {
    id: "snapshot-count",
    name: "25,000 snapshots",
    evidence: () => withTable({ snapshots: series(25_000 * MIN, MIN, MIN) }),
    status: "fail",
    value: ["snapshots", "25000"],
    fix: "retain_last => 100",
  },
  {
    id: "snapshot-count",
    name: "6,000 snapshots",
    evidence: () => withTable({ snapshots: series(6_000 * MIN, MIN, MIN) }),
    status: "warn",
  },
  {
    id: "snapshot-count",
    name: "a day of 5-minute commits",
    evidence: () => withTable({ snapshots: flinkEvery5m() }),
    status: "pass",
  },
  {
    id: "writer-identity",
    name: "mostly anonymous",
    evidence: () => withTable({ snapshots: series(DAY, HOUR, HOUR, { by: { anonymous: true } }) }),
    status: "fail",
    fix: "snapshot-property.job",
  },
  {
    id: "writer-identity",
    name: "a few anonymous",
    evidence: () =>
      withTable({ snapshots: [...flinkEvery5m(), snap(3 * HOUR, { by: { anonymous: true } })] }),
    status: "warn",
    value: ["withoutIdentity", "1"],
  },
  {
    id: "writer-identity",
    name: "all identified",
    evidence: () => withTable({ snapshots: flinkEvery5m() }),
    status: "pass",
  },
  {
    id: "wap-branches",
    name: "an audit branch forgotten for 20 days",
    evidence: () => {
      const old = snap(20 * DAY, { by: { spark: SPARK_APP } });
      const main = snap(HOUR, { by: { spark: SPARK_APP } });
      return withTable({
        snapshots: [old, main],
        properties: { "write.wap.enabled": "true" },
        refs: {
          main: { snapshotId: main.snapshotId, type: "branch" },
          audit_20261109: { snapshotId: old.snapshotId, type: "branch" },
        },
      });
    },
    status: "warn",
    value: ["write.wap.enabled", "true"],
    fix: "ALTER TABLE db.events DROP BRANCH audit_20261109;",
  },
  {
    id: "wap-branches",
    name: "no branches",
    evidence: () => withTable({ snapshots: flinkEvery5m() }),
    status: "pass",
  },
];

describe("audit checks", () => {
  it("has one check per audit id, in checklist order", () => {
    expect(AUDIT_RULES.map((r) => r.id)).toEqual([...AUDIT_CHECK_IDS]);
  });

  it.each(CASES)("$id is $status: $name", ({ id, evidence: build, status, value, fix }) => {
    const report = AuditReportSchema.parse(audit(build(), NOW));
    expect(report.checks.map((c) => c.id)).toEqual([...AUDIT_CHECK_IDS]);
    const check = report.checks.find((c) => c.id === id)!;
    expect(check.status).toBe(status);
    if (value) expect(check.values[value[0]]).toBe(value[1]);
    if (status === "pass") expect(check.fix).toBeUndefined();
    else expect(check.fix).toBeTruthy();
    if (fix) expect(check.fix).toContain(fix);
  });

  it("every status appears across the cases for every check", () => {
    for (const id of AUDIT_CHECK_IDS) {
      const statuses = new Set(CASES.filter((c) => c.id === id).map((c) => c.status));
      expect(statuses.has("pass"), id).toBe(true);
      expect(statuses.size, id).toBeGreaterThanOrEqual(2);
    }
  });

  it.each(HEALTHY_BASELINES)("a %s produces a valid report", (_name, build) => {
    const report = AuditReportSchema.parse(audit(build(), NOW, { catalogName: "prod" }));
    expect(report.generatedAt).toBe(new Date(NOW).toISOString());
    expect(report.checks).toHaveLength(AUDIT_CHECK_IDS.length);
  });

  it("has nothing to grade without the catalog", () => {
    const report = audit(evidence({ table: table({}), flink: flinkJob(), unavailable: ["catalog"] }), NOW);
    expect(AuditReportSchema.parse(report).checks).toEqual([]);
  });

  it("renders fixes against the configured catalog", () => {
    const report = audit(withTable({ properties: { "write.target-file-size-bytes": "4194304" } }), NOW, {
      catalogName: "lake",
    });
    expect(report.checks.find((c) => c.id === "target-file-size")?.fix).toContain(
      "ALTER TABLE lake.db.events SET TBLPROPERTIES",
    );
  });
});
