// Folds a sweep's table outcomes into the digest people read, one table at a time, so the memory
// it needs is bounded by the lists it keeps (the worst N, the first changes) and not by the size
// of the catalog. Pure: outcomes and the previous sweep's view of each table come in as data.

import type { RecurringTable } from "../history/fleet.js";
import { AUDIT_CHECK_IDS, type AuditCheckId } from "../ids.js";
import type { SkipCount } from "./budget.js";
import { type CheckStatus, compareHealth, type TableHealth, type TableOutcome } from "./health.js";

export interface CheckChange {
  table: string;
  check: AuditCheckId;
}

export interface Digest {
  sweepId: string;
  startedAtMs: number;
  finishedAtMs: number;
  /** Tables read and graded. */
  tables: number;
  /** Tables with at least one failing check. */
  failingTables: number;
  /** Tables whose diagnosis is not healthy right now. */
  unhealthyNow: number;
  /** Worst first, at most `worstLimit`. */
  worst: TableHealth[];
  countsByCheck: Record<AuditCheckId, { fail: number; warn: number }>;
  /** Absent on the first sweep: nothing to compare with. */
  changes?: {
    newFailures: CheckChange[];
    newFailuresTotal: number;
    fixed: CheckChange[];
    fixedTotal: number;
  };
  errors: { table: string; error: string }[];
  errorsTotal: number;
  /** Tables failing right now with an open incident: linked to its thread, not listed again. */
  inIncident: { table: string; score: number; incidentId: string; permalink?: string }[];
  /** Present when the sweep stopped short or left parts out (sweep.budget): what, and why. */
  skipped?: SkipCount[];
  /** Per named catalog, when the sweep covered named catalogs (in the order first seen). */
  byCatalog?: CatalogCounts[];
  /** Tables that failed more than once in the retention window, with the recurring cause. */
  recurring?: RecurringDigest;
}

export interface RecurringDigest {
  /** The retention window the incidents were counted in. */
  days: number;
  tables: RecurringTable[];
}

export interface CatalogCounts {
  catalog: string;
  tables: number;
  failingTables: number;
  unhealthyNow: number;
  errors: number;
}

export interface OpenIncidentRef {
  incidentId: string;
  permalink?: string;
}

export interface DigestOptions {
  sweepId: string;
  startedAtMs: number;
  /** How many of the worst tables to keep (default 10). */
  worstLimit?: number;
  /** Whether a previous sweep exists to compare with. */
  hasPrevious: boolean;
  /** Tables with an open incident, by name. */
  openIncidents?: ReadonlyMap<string, OpenIncidentRef>;
  /** What the sweep left out, by reason. */
  skipped?: SkipCount[];
}

/** How many changes, errors and tables in an incident to list by name (counts are always whole). */
const LIST_LIMIT = 20;

export class DigestBuilder {
  private readonly worstLimit: number;
  private readonly worst: TableHealth[] = [];
  private readonly counts = emptyCounts();
  private readonly newFailures: CheckChange[] = [];
  private readonly fixed: CheckChange[] = [];
  private readonly errors: { table: string; error: string }[] = [];
  private readonly inIncident: Digest["inIncident"] = [];
  private newFailuresTotal = 0;
  private fixedTotal = 0;
  /** The whole sweep's counts, kept as each named catalog's are. */
  private readonly total = { tables: 0, failingTables: 0, unhealthyNow: 0, errors: 0 };
  private readonly byCatalog = new Map<string, CatalogCounts>();

  constructor(private readonly options: DigestOptions) {
    this.worstLimit = options.worstLimit ?? 10;
  }

  /** `previous`: the table's checks in the last sweep, when it was graded then. */
  add(outcome: TableOutcome, previous?: Partial<Record<AuditCheckId, CheckStatus>>): void {
    for (const counts of [this.total, this.catalogCounts(outcome.catalog)]) {
      if (!counts) continue;
      if (outcome.kind === "error") counts.errors++;
      else {
        counts.tables++;
        if (outcome.verdict !== "healthy") counts.unhealthyNow++;
        if (Object.values(outcome.checks).includes("fail")) counts.failingTables++;
      }
    }
    if (outcome.kind === "error") {
      if (this.errors.length < LIST_LIMIT) this.errors.push({ table: outcome.table, error: outcome.error });
      return;
    }
    for (const [id, status] of Object.entries(outcome.checks) as [AuditCheckId, CheckStatus][]) {
      if (status !== "pass") this.counts[id][status]++;
      if (!this.options.hasPrevious || previous === undefined) continue;
      const before = previous[id];
      if (status === "fail" && before !== "fail") {
        this.newFailuresTotal++;
        if (this.newFailures.length < LIST_LIMIT) this.newFailures.push({ table: outcome.table, check: id });
      } else if (before === "fail" && status !== "fail") {
        this.fixedTotal++;
        if (this.fixed.length < LIST_LIMIT) this.fixed.push({ table: outcome.table, check: id });
      }
    }
    const open = this.options.openIncidents?.get(outcome.table);
    if (open) {
      if (this.inIncident.length < LIST_LIMIT) {
        this.inIncident.push({ table: outcome.table, score: outcome.score, ...open });
      }
      return;
    }
    this.keepIfWorst(stripKind(outcome));
  }

  finish(finishedAtMs: number): Digest {
    const digest: Digest = {
      sweepId: this.options.sweepId,
      startedAtMs: this.options.startedAtMs,
      finishedAtMs,
      tables: this.total.tables,
      failingTables: this.total.failingTables,
      unhealthyNow: this.total.unhealthyNow,
      worst: [...this.worst],
      countsByCheck: this.counts,
      errors: [...this.errors],
      errorsTotal: this.total.errors,
      inIncident: [...this.inIncident],
    };
    if (this.options.skipped && this.options.skipped.length > 0) digest.skipped = [...this.options.skipped];
    if (this.byCatalog.size > 0) digest.byCatalog = [...this.byCatalog.values()].map((c) => ({ ...c }));
    if (this.options.hasPrevious) {
      digest.changes = {
        newFailures: [...this.newFailures],
        newFailuresTotal: this.newFailuresTotal,
        fixed: [...this.fixed],
        fixedTotal: this.fixedTotal,
      };
    }
    return digest;
  }

  private catalogCounts(catalog: string | undefined): CatalogCounts | undefined {
    if (catalog === undefined) return undefined;
    let counts = this.byCatalog.get(catalog);
    if (!counts) {
      counts = { catalog, tables: 0, failingTables: 0, unhealthyNow: 0, errors: 0 };
      this.byCatalog.set(catalog, counts);
    }
    return counts;
  }

  /** Sorted insertion into a short list: O(worstLimit) per table, no full sort of the catalog. */
  private keepIfWorst(health: TableHealth): void {
    if (health.score >= 100 && Object.values(health.checks).every((s) => s === "pass")) return;
    const list = this.worst;
    if (list.length >= this.worstLimit && compareHealth(health, list[list.length - 1]!) >= 0) return;
    let at = list.length;
    while (at > 0 && compareHealth(health, list[at - 1]!) < 0) at--;
    list.splice(at, 0, health);
    if (list.length > this.worstLimit) list.pop();
  }
}

function stripKind(outcome: Extract<TableOutcome, { kind: "health" }>): TableHealth {
  const { kind: _kind, ...health } = outcome;
  return health;
}

function emptyCounts(): Digest["countsByCheck"] {
  return Object.fromEntries(
    AUDIT_CHECK_IDS.map((id) => [id, { fail: 0, warn: 0 }]),
  ) as Digest["countsByCheck"];
}
