// Two named catalogs may each hold a table of the same name (a prod and a staging lake both with
// sales.orders). The sweep's state in Redis grades each on its own: neither overwrites the other's
// result, "what changed since the last sweep" compares each with itself, and /metrics shows the
// worse of the two under the shared table label.

import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { registerSweepMetrics } from "../../src/adapters/http/metrics/sweep.js";
import { SweepStore } from "../../src/adapters/store/sweep-store.js";
import { DigestBuilder } from "../../src/core/sweep/digest.js";
import type { TableOutcome } from "../../src/core/sweep/health.js";
import { type TestRedisScope, testRedisScope } from "../support/redis.js";

let scope: TestRedisScope | undefined;
afterEach(async () => {
  await scope?.cleanup();
  scope = undefined;
});

function graded(catalog: string, score: number, retry: "pass" | "fail"): TableOutcome {
  return {
    kind: "health",
    table: "sales.orders",
    catalog,
    score,
    checks: { "retry-budget": retry },
    verdict: score < 50 ? "commit-conflict" : "healthy",
  };
}

async function allOutcomes(store: SweepStore, sweepId: string): Promise<TableOutcome[]> {
  const out: TableOutcome[] = [];
  for await (const page of store.outcomes(sweepId)) out.push(...page);
  return out.sort((a, b) => (a.catalog ?? "").localeCompare(b.catalog ?? ""));
}

describe("a sweep over two catalogs holding a table of the same name", () => {
  it("keeps both results, compares each with its own previous one, and ranks the worse first", async () => {
    scope = testRedisScope("sweep-catalogs");
    const store = new SweepStore(scope.redis, scope.namespace);

    await store.addPending("s1", ["t-prod", "t-staging"]);
    await store.finishTask("s1", "t-prod", graded("prod", 90, "pass"));
    expect(await store.finishTask("s1", "t-staging", graded("staging", 30, "fail"))).toBe(0);
    const first = await allOutcomes(store, "s1");
    expect(first.map((o) => [o.table, o.catalog, o.kind === "health" ? o.score : -1])).toEqual([
      ["sales.orders", "prod", 90],
      ["sales.orders", "staging", 30],
    ]);
    const digest = new DigestBuilder({ sweepId: "s1", startedAtMs: 0, hasPrevious: false });
    for (const o of first) digest.add(o);
    await store.promote("s1", digest.finish(1));

    // The next sweep: prod's retry check now fails, staging's now passes. Each is compared with
    // its own catalog's previous result, not with whichever was written last.
    const previous = await store.previousChecks([
      { table: "sales.orders", catalog: "prod" },
      { table: "sales.orders", catalog: "staging" },
    ]);
    expect(previous).toEqual([{ "retry-budget": "pass" }, { "retry-budget": "fail" }]);
    expect(await store.latestOutcome({ table: "sales.orders", catalog: "staging" })).toMatchObject({
      catalog: "staging",
      score: 30,
    });

    // Worst first, each under its own catalog.
    const worst = await store.latestWorst(10);
    expect(worst.map((t) => `${t.catalog}/${t.table}:${t.score}`)).toEqual([
      "staging/sales.orders:30",
      "prod/sales.orders:90",
    ]);
    // /metrics labels series by table name only: the worse of the two is the one scraped.
    const registry = new Registry();
    registerSweepMetrics(registry, store, 10);
    const scraped = await registry.metrics();
    expect(scraped.match(/^iceberg_bot_table_health_score\{.*$/gm)).toEqual([
      'iceberg_bot_table_health_score{table="sales.orders"} 30',
    ]);
  });

  it("still keys a table of a single, unnamed catalog by its name alone", async () => {
    scope = testRedisScope("sweep-one-catalog");
    const store = new SweepStore(scope.redis, scope.namespace);
    await store.addPending("s1", ["t-1"]);
    await store.finishTask("s1", "t-1", {
      kind: "health",
      table: "db.events",
      score: 70,
      checks: {},
      verdict: "healthy",
    });
    expect(await scope.redis.hkeys(`{${scope.namespace}}:sweep:s1:results`)).toEqual(["db.events"]);
    expect((await allOutcomes(store, "s1")).map((o) => o.table)).toEqual(["db.events"]);
  });
});
