// What the sweep use cases need from the outside: its Redis state, its queues, and a way to post
// to Slack. Adapters implement these; main.ts wires them.

import type { AuditCheckId } from "../../core/ids.js";
import type { Digest } from "../../core/sweep/digest.js";
import type { CheckStatus, TableOutcome } from "../../core/sweep/health.js";

export interface SweepMeta {
  startedAt: number;
  trigger: "schedule" | "command";
  requestedBy?: string;
  /** Where the digest goes when the configuration names no channel (the command's channel). */
  channel?: string;
}

/** A table as the sweep knows it: its name, and the named catalog it was listed in, if any. */
export interface TableInCatalog {
  table: string;
  catalog?: string;
}

export interface SweepStorePort {
  claim(sweepId: string, meta: SweepMeta): Promise<{ running: string | undefined; mine: boolean }>;
  running(): Promise<string | undefined>;
  meta(sweepId: string): Promise<SweepMeta | undefined>;
  addPending(sweepId: string, taskIds: readonly string[]): Promise<void>;
  isPending(sweepId: string, taskId: string): Promise<boolean>;
  finishTask(sweepId: string, taskId: string, outcome?: TableOutcome): Promise<number>;
  outcomes(sweepId: string): AsyncGenerator<TableOutcome[]>;
  previousChecks(
    tables: readonly TableInCatalog[],
  ): Promise<(Partial<Record<AuditCheckId, CheckStatus>> | undefined)[]>;
  hasLatest(): Promise<boolean>;
  savedDigest(sweepId: string): Promise<Digest | undefined>;
  saveDigest(sweepId: string, digest: Digest): Promise<void>;
  promote(sweepId: string, digest: Digest): Promise<void>;
  latest(): Promise<Digest | undefined>;
  latestOutcome(table: TableInCatalog): Promise<TableOutcome | undefined>;
  /** Adds to the sweep's counters (requests, namespaces, tables, skip:<reason>); returns the totals. */
  count(sweepId: string, add: Record<string, number>): Promise<Record<string, number>>;
  counters(sweepId: string): Promise<Record<string, number>>;
}

/**
 * A task of a sweep: one catalog round trip each (a listing page or a table load). `catalog`
 * names the catalog walked when the sweep covers named catalogs.
 */
export type SweepTask = (
  | { kind: "namespaces"; sweepId: string; parent?: string[]; pageToken?: string; page?: number }
  | { kind: "tables"; sweepId: string; namespace: string[]; pageToken?: string; page?: number }
  | { kind: "table"; sweepId: string; table: string }
) & { catalog?: string };

/** A job of the sweep's control queue (services/sweep/control.ts runs them). */
export type SweepControlJob =
  | { kind: "start"; trigger: "schedule" | "command"; requestedBy?: string; channel?: string }
  | { kind: "finish"; sweepId: string }
  | { kind: "audit"; table: string; channel: string; threadTs: string; user: string }
  /** "Start the fix" on a digest line: open (or find) the table's incident, tell who asked. */
  | { kind: "fix"; table: string; channel: string; user: string };

export interface SweepQueuePort {
  /** Adds tasks to the rate-limited catalog queue; ids make a second add of the same task a no-op. */
  addTasks(tasks: readonly SweepTask[]): Promise<void>;
  /** Queues the digest once every task is done (one job per sweep, whoever asks). */
  addFinish(sweepId: string): Promise<void>;
}
