// Grades one table against the concurrent-writers checklist. Pure: `now` comes in.
// Without the catalog there is nothing to grade, so the check list is empty.

import type { Evidence } from "../evidence/model.js";
import type { AuditReport } from "../report/schema.js";
import { formatTableName } from "../table-name.js";
import { deleteFileCompaction } from "./checks/delete-file-compaction.js";
import { distributionMode } from "./checks/distribution-mode.js";
import { isolationLevel } from "./checks/isolation-level.js";
import { metadataCleanup } from "./checks/metadata-cleanup.js";
import { retryBudget } from "./checks/retry-budget.js";
import { snapshotCount } from "./checks/snapshot-count.js";
import { snapshotExpiry } from "./checks/snapshot-expiry.js";
import { targetFileSize } from "./checks/target-file-size.js";
import { wapBranches } from "./checks/wap-branches.js";
import { writeMode } from "./checks/write-mode.js";
import { writerIdentity } from "./checks/writer-identity.js";
import type { AuditContext, AuditRule } from "./context.js";

/** In the order of the checklist (ids.ts). */
export const AUDIT_RULES: readonly AuditRule[] = [
  retryBudget,
  isolationLevel,
  writeMode,
  deleteFileCompaction,
  distributionMode,
  targetFileSize,
  metadataCleanup,
  snapshotExpiry,
  snapshotCount,
  writerIdentity,
  wapBranches,
];

export interface AuditOptions {
  tableName?: string;
  catalogName?: string;
}

export function audit(evidence: Evidence, now: number, options: AuditOptions = {}): AuditReport {
  const table = evidence.sources.catalog?.status === "ok" ? evidence.catalog : undefined;
  const base = {
    reportVersion: 1 as const,
    table: options.tableName ?? formatTableName(evidence.table),
    generatedAt: new Date(now).toISOString(),
  };
  if (!table) return { ...base, checks: [] };
  const ctx: AuditContext = {
    evidence,
    now,
    table,
    snapshots: table.snapshots,
    target: { table: evidence.table, ...(options.catalogName ? { catalog: options.catalogName } : {}) },
  };
  return { ...base, checks: AUDIT_RULES.map((rule) => ({ id: rule.id, ...rule.check(ctx) })) };
}
