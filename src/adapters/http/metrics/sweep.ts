// Table health from the latest sweep on /metrics, read from Redis at scrape time. Cardinality is
// bounded by `sweep.metricsTables` (the N worst tables): at most N x 11 check series, N score
// series and four sweep-level series, whatever the size of the catalog (docs/sweep.md).

import type { Registry } from "prom-client";
import type { Digest } from "../../../core/sweep/digest.js";
import type { TableHealth } from "../../../core/sweep/health.js";
import { gauge, perScrape } from "./registry.js";

export interface SweepMetricsSource {
  latest(): Promise<Digest | undefined>;
  latestWorst(limit: number): Promise<TableHealth[]>;
}

export function registerSweepMetrics(
  registry: Registry,
  source: SweepMetricsSource,
  maxTables: number,
): void {
  // One scrape reads Redis once for all four metrics.
  const read = perScrape(
    async () => {
      const [digest, worst] = await Promise.all([source.latest(), source.latestWorst(maxTables)]);
      return { digest, worst };
    },
    { digest: undefined, worst: [] as TableHealth[] },
  );
  gauge(
    registry,
    {
      name: "iceberg_bot_table_check",
      help: "Latest sweep: 1 for each table's audit check at its current status (pass, warn, fail); worst tables only, see sweep.metricsTables.",
      labelNames: ["table", "check", "status"],
    },
    async (g) => {
      g.reset();
      for (const t of worstPerName((await read()).worst)) {
        for (const [check, status] of Object.entries(t.checks)) g.set({ table: t.table, check, status }, 1);
      }
    },
  );
  gauge(
    registry,
    {
      name: "iceberg_bot_table_health_score",
      help: "Latest sweep: the table's health score, 0 to 100 (100 = nothing to fix); worst tables only.",
      labelNames: ["table"],
    },
    async (g) => {
      g.reset();
      for (const t of worstPerName((await read()).worst)) g.set({ table: t.table }, t.score);
    },
  );
  gauge(
    registry,
    {
      name: "iceberg_bot_sweep_tables",
      help: "Latest sweep: tables graded, graded with a failing check, and not read.",
      labelNames: ["result"],
    },
    async (g) => {
      g.reset();
      const { digest } = await read();
      if (!digest) return;
      g.set({ result: "graded" }, digest.tables);
      g.set({ result: "failing" }, digest.failingTables);
      g.set({ result: "unreadable" }, digest.errorsTotal);
    },
  );
  gauge(
    registry,
    {
      name: "iceberg_bot_sweep_last_finished_timestamp_seconds",
      help: "When the latest sweep finished, in Unix seconds.",
    },
    async (g) => {
      g.reset();
      const { digest } = await read();
      if (digest) g.set(digest.finishedAtMs / 1000);
    },
  );
}

/**
 * One series per table name: tables of the same name in two named catalogs share the `table`
 * label, and the list comes worst first, so the worse of them is the one shown.
 */
function worstPerName(worst: readonly TableHealth[]): TableHealth[] {
  const seen = new Set<string>();
  return worst.filter((t) => !seen.has(t.table) && seen.add(t.table));
}
