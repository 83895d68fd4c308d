// A whole sweep in one process (the `sweep` command): walk the catalog, grade every table with a
// bounded number in flight, and rank them. The bot runs the same grading spread over workers.

import type { Playbook } from "../../core/remediation/schema.js";
import type { BotConfig } from "../../core/settings.js";
import { type BudgetLimits, type SkipReason, skipSummary } from "../../core/sweep/budget.js";
import { budgetLimits, DEFAULT_SWEEP_CONFIG } from "../../core/sweep/config.js";
import { compareHealth, type TableOutcome } from "../../core/sweep/health.js";
import { formatTableName } from "../../core/table-name.js";
import { asCodedError, CodedError, ErrorCode } from "../../errors.js";
import type { EvidencePorts } from "../ports.js";
import { createCatalogMeter, meteredCatalog } from "./catalog-budget.js";
import { listCatalog } from "./catalog-listing.js";
import { gradeTable } from "./grade-table.js";
import { type SweepReport, sweepReport } from "./report.js";
import { sweptCatalogs } from "./service.js";

export interface RunSweepOptions {
  playbooks: readonly Playbook[];
  under?: string[];
  concurrency?: number;
  /** How many tables the ranking lists (all when absent). */
  limit?: number;
  bot?: BotConfig;
  timeoutMs?: number;
  catalogName?: string;
  /** Limits of this sweep (default: bot.sweep.budget). */
  limits?: BudgetLimits;
  /** Catalog requests per second (default: bot.sweep.ratePerSecond.catalog). */
  perSecond?: number;
  /** Monotonic clock and sleep for the rate and the time budget (real ones by default). */
  clock?: () => number;
  sleep?: (ms: number) => Promise<void>;
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
  const sweepConfig = options.bot?.sweep ?? DEFAULT_SWEEP_CONFIG;
  const limits = options.limits ?? budgetLimits(sweepConfig);
  const meter = createCatalogMeter({
    limits,
    perSecond: options.perSecond ?? sweepConfig.ratePerSecond.catalog,
    clock: options.clock,
    sleep: options.sleep,
  });
  // Every named catalog is walked in turn (under one budget); else the one catalog.
  const names = options.bot ? sweptCatalogs(ports, options.bot) : ports.catalogs?.all.map((c) => c.name);
  const walks = names
    ? names.map((name) => {
        const named = ports.catalogs?.byName(name);
        if (!named)
          throw new CodedError(ErrorCode.ConfigInvalid, `No catalog is named ${name}`, {
            hint: "Check sweep.catalogs against sources.catalogs in BOT_CONFIG.",
          });
        return { name: name as string | undefined, port: named.port };
      })
    : [{ name: undefined as string | undefined, port: catalog }];
  const meteredDirectory = ports.catalogs && {
    ...ports.catalogs,
    byName: (name: string) => {
      const named = ports.catalogs?.byName(name);
      return named && { name: named.name, port: meteredCatalog(named.port, meter) };
    },
  };
  const metered: EvidencePorts = {
    ...ports,
    catalog: meteredCatalog(catalog, meter),
    ...(meteredDirectory ? { catalogs: meteredDirectory } : {}),
  };
  const skipped: Partial<Record<SkipReason, number>> = {};
  const outcomes: (TableOutcome | { kind: "skipped"; table: string })[] = [];
  const limit = Math.max(1, options.concurrency ?? 4);
  const running = new Set<Promise<void>>();
  for (const source of walks) {
    const walk = listCatalog(meteredCatalog(source.port, meter), {
      under: options.under,
      limits,
      meter,
      skipped,
    });
    for await (const ref of walk) {
      const table = formatTableName(ref);
      const task = grade(table, source.name).then((outcome) => {
        outcomes.push(outcome);
        running.delete(task);
      });
      running.add(task);
      if (running.size >= limit) await Promise.race(running);
    }
  }
  await Promise.all(running);

  async function grade(
    table: string,
    catalogSource: string | undefined,
  ): Promise<TableOutcome | { kind: "skipped"; table: string }> {
    try {
      const { health } = await gradeTable(metered, table, now, {
        ...options,
        ...(catalogSource ? { catalogSource } : {}),
      });
      return { kind: "health", ...health };
    } catch (error) {
      const coded = asCodedError(error);
      if (coded.code === ErrorCode.BudgetExhausted) {
        const limit = (coded.details?.limit ?? "requests") as SkipReason;
        skipped[limit] = (skipped[limit] ?? 0) + 1;
        return { kind: "skipped", table };
      }
      return {
        kind: "error",
        table,
        error: coded.message,
        ...(catalogSource ? { catalog: catalogSource } : {}),
      };
    }
  }

  const graded = outcomes.flatMap((o) => (o.kind === "health" ? [o] : []));
  const failed = outcomes.filter((o) => o.kind === "error").length;
  if (failed > 0 && graded.length === 0) {
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
    skipped: skipSummary(skipped),
  });
}
