// A whole sweep in one process (the `sweep` command): walk the catalog, grade every table with a
// bounded number in flight, and rank them. The bot runs the same grading spread over workers.

import type { Playbook } from "../../core/playbook/schema.js";
import type { BotConfig } from "../../core/settings.js";
import { compareHealth, type TableOutcome } from "../../core/sweep/health.js";
import { formatTableName } from "../../core/table-name.js";
import { asCodedError, CodedError, ErrorCode } from "../../errors.js";
import type { EvidencePorts } from "../ports.js";
import { walkCatalog } from "./catalog-walk.js";
import { gradeTable } from "./grade-table.js";
import { type SweepReport, sweepReport } from "./report.js";

export interface RunSweepOptions {
  playbooks: readonly Playbook[];
  under?: string[];
  concurrency?: number;
  /** How many tables the ranking lists (all when absent). */
  limit?: number;
  bot?: BotConfig;
  timeoutMs?: number;
  catalogName?: string;
}

export async function runSweep(
  ports: EvidencePorts,
  now: () => number,
  options: RunSweepOptions,
): Promise<SweepReport> {
  const catalog = ports.catalog;
  if (!catalog) {
    throw new CodedError(
      ErrorCode.ConfigInvalid,
      "A sweep lists the tables of the Iceberg catalog, which is not configured.",
      {
        hint: "Pass --catalog-url or set ICEBERG_CATALOG_URL.",
      },
    );
  }
  const startedAtMs = now();
  const outcomes: TableOutcome[] = [];
  const limit = Math.max(1, options.concurrency ?? 4);
  const running = new Set<Promise<void>>();
  for await (const ref of walkCatalog(catalog, { under: options.under })) {
    const table = formatTableName(ref);
    const task = grade(table).then((outcome) => {
      outcomes.push(outcome);
      running.delete(task);
    });
    running.add(task);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);

  async function grade(table: string): Promise<TableOutcome> {
    try {
      const { health } = await gradeTable(ports, table, now, options);
      return { kind: "health", ...health };
    } catch (error) {
      return { kind: "error", table, error: asCodedError(error).message };
    }
  }

  const graded = outcomes.flatMap((o) => (o.kind === "health" ? [o] : []));
  if (outcomes.length > 0 && graded.length === 0) {
    throw new CodedError(ErrorCode.NoEvidence, `None of the ${outcomes.length} tables could be read.`, {
      hint: "Check that the catalog is reachable and answers table loads, then try again.",
      details: { first: outcomes[0] },
    });
  }
  graded.sort(compareHealth);
  return sweepReport({
    startedAtMs,
    finishedAtMs: now(),
    namespace: options.under?.join("."),
    graded,
    errors: outcomes.flatMap((o) => (o.kind === "error" ? [{ table: o.table, error: o.error }] : [])),
    limit: options.limit,
  });
}
