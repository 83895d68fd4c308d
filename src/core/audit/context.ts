// What every audit check reads: the table, `now`, and a few counts over recent snapshots
// (computed from the newest end, with binary search, so long histories stay cheap).

import { committerKey, committerOf } from "../attribution/attribute.js";
import { lowerBound } from "../diagnosis/snapshots.js";
import type { Evidence, Snapshot, TableEvidence } from "../evidence/model.js";
import type { AuditCheckId } from "../ids.js";
import type { AuditCheck } from "../report/schema.js";
import type { StatementTarget } from "../statements.js";

export const DAY_MS = 86_400_000;

export interface AuditContext {
  evidence: Evidence;
  now: number;
  table: TableEvidence;
  snapshots: readonly Snapshot[];
  target: StatementTarget;
}

export interface AuditRule {
  id: AuditCheckId;
  /** The check's outcome; audit() adds the rule's id. */
  check(context: AuditContext): Omit<AuditCheck, "id">;
}

/** Index of the first snapshot within `days` of now. */
export function sinceDays(ctx: AuditContext, days: number): number {
  return lowerBound(ctx.snapshots, ctx.now - days * DAY_MS);
}

/** Distinct committers in the last `days`. */
export function committersSince(ctx: AuditContext, days: number): Set<string> {
  const keys = new Set<string>();
  for (let i = sinceDays(ctx, days); i < ctx.snapshots.length; i++)
    keys.add(committerKey(committerOf(ctx.snapshots[i]!)));
  return keys;
}

/** The snapshot main points at (else the newest one). */
export function currentSnapshot(ctx: AuditContext): Snapshot | undefined {
  const id = ctx.table.currentSnapshotId;
  if (id !== undefined) {
    for (let i = ctx.snapshots.length - 1; i >= 0; i--)
      if (ctx.snapshots[i]!.snapshotId === id) return ctx.snapshots[i];
  }
  return ctx.snapshots[ctx.snapshots.length - 1];
}

export function summaryNumber(snapshot: Snapshot | undefined, key: string): number {
  const value = Number(snapshot?.summary[key]);
  return Number.isFinite(value) ? value : 0;
}

export function pick(
  properties: Record<string, string>,
  keys: readonly string[],
): Record<string, string | null> {
  return Object.fromEntries(keys.map((k) => [k, properties[k] ?? null]));
}

export function result(
  status: AuditCheck["status"],
  summary: string,
  values: Record<string, string | null>,
  fix?: string,
): Omit<AuditCheck, "id"> {
  return { status, summary, values, ...(status !== "pass" && fix ? { fix } : {}) };
}
