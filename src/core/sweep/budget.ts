// What one sweep may spend on the catalog, and how a walk decides to stop. A hostile or broken
// catalog (one that ignores ?parent=, one whose next-page-token never ends) must not make a sweep
// run for hours or hold its lock: every walk counts what it spends and stops at a limit, saying
// what it left out and why. Pure: the time comes in as an argument.

export type BudgetLimit = "requests" | "namespaces" | "tables" | "time" | "pages";

export interface BudgetLimits {
  /** Catalog round trips in one sweep (listings and table loads). */
  requests: number;
  /** Namespaces walked. */
  namespaces: number;
  /** Tables graded. */
  tables: number;
  /** Milliseconds from the sweep's start. */
  timeMs: number;
  /** Pages of one listing (a next-page-token that never ends stops here). */
  pagesPerListing: number;
}

export const DEFAULT_BUDGET: BudgetLimits = {
  // A platform of 100,000 tables (about 101,000 round trips) sweeps well inside these.
  requests: 400_000,
  namespaces: 20_000,
  tables: 200_000,
  timeMs: 6 * 3_600_000,
  pagesPerListing: 1_000,
};

export interface BudgetSpent {
  requests: number;
  namespaces: number;
  tables: number;
}

/** The limit a walk has reached, if any, once `spent` is counted at `nowMs`. */
export function exhausted(
  limits: BudgetLimits,
  spent: BudgetSpent,
  startedAtMs: number,
  nowMs: number,
): BudgetLimit | undefined {
  if (nowMs - startedAtMs >= limits.timeMs) return "time";
  if (spent.requests >= limits.requests) return "requests";
  if (spent.namespaces > limits.namespaces) return "namespaces";
  if (spent.tables > limits.tables) return "tables";
  return undefined;
}

/**
 * A namespace the catalog lists under `parent` must lie below it (the REST spec answers full
 * names). A catalog that ignores ?parent= answers its top level again for every parent, which
 * would otherwise send the walk round a cycle forever.
 */
export function liesUnder(parent: readonly string[] | undefined, child: readonly string[]): boolean {
  if (child.length === 0) return false;
  if (!parent || parent.length === 0) return true;
  if (child.length <= parent.length) return false;
  return parent.every((level, i) => child[i] === level);
}

/** Why part of a sweep was left out; counted, and named in the digest. */
export type SkipReason = BudgetLimit | "outside-parent" | "seen-before";

export const SKIP_REASON_TEXT: Record<SkipReason, string> = {
  requests: "the sweep reached its limit of catalog requests (sweep.budget.requests)",
  namespaces: "the sweep reached its limit of namespaces (sweep.budget.namespaces)",
  tables: "the sweep reached its limit of tables (sweep.budget.tables)",
  time: "the sweep ran out of time (sweep.budget.minutes)",
  pages:
    "a listing kept sending next-page-token past sweep.budget.pagesPerListing pages; the catalog's pagination does not end",
  "outside-parent":
    "the catalog listed namespaces that do not lie under the one asked for (it seems to ignore ?parent=); they were not followed",
  "seen-before": "the catalog listed a namespace already walked; it was not walked twice",
};

export interface SkipCount {
  reason: SkipReason;
  count: number;
}

/** Counts of what was skipped, in a stable order for messages. */
export function skipSummary(counts: Partial<Record<SkipReason, number>>): SkipCount[] {
  const order = Object.keys(SKIP_REASON_TEXT) as SkipReason[];
  return order.flatMap((reason) => {
    const count = counts[reason] ?? 0;
    return count > 0 ? [{ reason, count }] : [];
  });
}
