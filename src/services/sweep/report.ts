// The sweep's report as the `sweep` command prints it (`--format json` is this object).

import type { AuditCheckId } from "../../core/ids.js";
import { AUDIT_CHECK_IDS } from "../../core/ids.js";
import { SKIP_REASON_TEXT, type SkipCount, type SkipReason } from "../../core/sweep/budget.js";
import { countFails, failingChecks, type TableHealth } from "../../core/sweep/health.js";

interface RankedTable extends TableHealth {
  rank: number;
  failing: { id: AuditCheckId; status: "warn" | "fail" }[];
}

export interface SweepReport {
  sweepVersion: 1;
  generatedAt: string;
  durationMs: number;
  namespace?: string;
  tables: number;
  failingTables: number;
  unhealthyNow: number;
  countsByCheck: Record<AuditCheckId, { fail: number; warn: number }>;
  /** Worst first; `--limit` cuts it, the counts above always cover every table. */
  ranking: RankedTable[];
  errors: { table: string; error: string }[];
  /** Present when the sweep stopped short or left parts of the catalog out: what, and why. */
  skipped?: { reason: SkipReason; count: number; why: string }[];
}

export function sweepReport(input: {
  startedAtMs: number;
  finishedAtMs: number;
  namespace?: string;
  /** Already sorted worst first. */
  graded: (TableHealth & { kind?: string })[];
  errors: { table: string; error: string }[];
  limit?: number;
  skipped?: SkipCount[];
}): SweepReport {
  const counts = {} as SweepReport["countsByCheck"];
  for (const id of AUDIT_CHECK_IDS) counts[id] = { fail: 0, warn: 0 };
  for (const table of input.graded) {
    for (const [id, status] of Object.entries(table.checks)) {
      if (status === "fail" || status === "warn") counts[id as AuditCheckId][status]++;
    }
  }
  const shown = input.limit === undefined ? input.graded : input.graded.slice(0, input.limit);
  return {
    sweepVersion: 1,
    generatedAt: new Date(input.finishedAtMs).toISOString(),
    durationMs: Math.max(0, input.finishedAtMs - input.startedAtMs),
    ...(input.namespace ? { namespace: input.namespace } : {}),
    tables: input.graded.length,
    failingTables: input.graded.filter((t) => countFails(t) > 0).length,
    unhealthyNow: input.graded.filter((t) => t.verdict !== "healthy").length,
    countsByCheck: counts,
    ranking: shown.map(({ kind: _kind, ...table }, i) => ({
      ...table,
      rank: i + 1,
      failing: failingChecks(table),
    })),
    errors: [...input.errors].sort((a, b) => a.table.localeCompare(b.table)),
    ...(input.skipped && input.skipped.length > 0
      ? { skipped: input.skipped.map((s) => ({ ...s, why: SKIP_REASON_TEXT[s.reason] })) }
      : {}),
  };
}
