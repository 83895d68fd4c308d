// The health score a sweep ranks tables by (documented in docs/sweep.md). Pure: it reads the audit
// and diagnosis reports of one table and nothing else.
//
// 100 is a table with nothing to fix. Each audit check that fails takes its weight off, a warning
// half of it; a diagnosis whose verdict is not `healthy` (a failure visible right now) takes
// FAILING_NOW_PENALTY off. The weights follow how directly a check leads to a failed commit or a
// writer that cannot restore, and how costly that failure is to recover from.

import type { AuditCheckId } from "../ids.js";
import type { AuditReport, Report } from "../report/schema.js";

export const CHECK_WEIGHTS: Readonly<Record<AuditCheckId, number>> = {
  // Conflicts the default budget cannot absorb once several committers share the table.
  "retry-budget": 15,
  // Expiry that removes a streaming writer's last snapshot: the writer cannot restore at all.
  "snapshot-expiry": 15,
  // Upsert tables without delete-file compaction slow every read and every commit's validation.
  "delete-file-compaction": 12,
  // Serializable row-level commands fail validation against concurrent appends.
  "isolation-level": 10,
  // Copy-on-write rewrites whole files on every row-level change, widening conflict windows.
  "write-mode": 8,
  // Without writer identity nobody can tell who won the race in an incident.
  "writer-identity": 8,
  // Unbounded metadata files make every commit slower.
  "metadata-cleanup": 6,
  // Thousands of live snapshots: large metadata, slow planning and commits.
  "snapshot-count": 6,
  // Unclustered writes produce many small files per commit.
  "distribution-mode": 5,
  // Tiny target files: many files per commit and compaction pressure.
  "target-file-size": 5,
  // Forgotten write-audit-publish branches keep snapshots alive and confuse readers.
  "wap-branches": 5,
};

export const FAILING_NOW_PENALTY = 25;

export type CheckStatus = "pass" | "warn" | "fail";

/** What a sweep keeps about one table: small, because it is stored for every table. */
export interface TableHealth {
  table: string;
  /** The named catalog the table was read from, when the sweep covers several. */
  catalog?: string;
  /** 0..100, higher is healthier. */
  score: number;
  /** Every audit check's status, in checklist order. */
  checks: Partial<Record<AuditCheckId, CheckStatus>>;
  /** The diagnosis verdict (a triage finding id). */
  verdict: string;
  /** The diagnosis's next step id, when it has one. */
  nextStep?: string;
  /** The one-line fix of the heaviest failing (else warning) check, or of the next step. */
  fix?: string;
}

/** A table the sweep could not read; it is listed, never ranked as healthy. */
interface TableError {
  table: string;
  error: string;
  catalog?: string;
}

export type TableOutcome = ({ kind: "health" } & TableHealth) | ({ kind: "error" } & TableError);

const FIX_MAX = 240;

export function tableHealth(table: string, auditReport: AuditReport, diagnosis: Report): TableHealth {
  let score = 100;
  const checks: TableHealth["checks"] = {};
  for (const check of auditReport.checks) {
    checks[check.id] = check.status;
    score -= penalty(check.id, check.status);
  }
  if (diagnosis.verdict !== "healthy") score -= FAILING_NOW_PENALTY;
  // The fix shown is the heaviest failing check's, else the heaviest warning's.
  const worst = [...auditReport.checks]
    .filter((c) => c.status !== "pass" && c.fix)
    .sort((a, b) => rank(b) - rank(a))[0];
  const fixText = worst?.fix ?? diagnosis.nextStep?.summary;
  const health: TableHealth = {
    table,
    score: Math.max(0, score),
    checks,
    verdict: diagnosis.verdict,
  };
  if (diagnosis.nextStep) health.nextStep = diagnosis.nextStep.id;
  if (fixText) health.fix = oneLine(fixText);
  return health;
}

/** Failing checks before warnings, each the heavier first. */
function rank(c: { id: AuditCheckId; status: CheckStatus }): number {
  return (c.status === "fail" ? 1000 : 0) + penalty(c.id, c.status);
}

function penalty(id: AuditCheckId, status: CheckStatus): number {
  const weight = CHECK_WEIGHTS[id] ?? 0;
  if (status === "fail") return weight;
  if (status === "warn") return Math.ceil(weight / 2);
  return 0;
}

/** Checks that are not passing, heaviest first. */
export function failingChecks(health: TableHealth): { id: AuditCheckId; status: "warn" | "fail" }[] {
  return (Object.entries(health.checks) as [AuditCheckId, CheckStatus][])
    .flatMap(([id, status]) => (status === "pass" ? [] : [{ id, status }]))
    .sort((a, b) => rank(b) - rank(a) || a.id.localeCompare(b.id));
}

/**
 * Worst first: a table failing right now before any that only has risky settings (a score of 62
 * with nothing failing can wait; commits failing now cannot), then the lowest score, then more
 * failing checks, then the name (a stable order).
 */
export function compareHealth(a: TableHealth, b: TableHealth): number {
  return (
    failingNow(b) - failingNow(a) ||
    a.score - b.score ||
    countFails(b) - countFails(a) ||
    a.table.localeCompare(b.table)
  );
}

function failingNow(health: TableHealth): number {
  return health.verdict === "healthy" ? 0 : 1;
}

export function countFails(health: TableHealth): number {
  return Object.values(health.checks).filter((status) => status === "fail").length;
}

/** A fix folded onto one line (statements span several), cut to what a digest line can hold. */
function oneLine(text: string): string {
  const folded = text.trim().replace(/\(\s+/g, "(").replace(/\s+\)/g, ")").replace(/\s+/g, " ");
  return folded.length > FIX_MAX ? `${folded.slice(0, FIX_MAX - 1)}…` : folded;
}
