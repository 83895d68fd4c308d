// The bot's sweep against catalogs that would keep it going forever: one that ignores ?parent=
// (before: hours at the catalog's rate, no digest, the lock held for a day) and one whose
// next-page-token never ends. Each sweep ends on its own, posts a partial digest that says what
// it left out and why, and lets go of its lock.

import { afterEach, describe, expect, it } from "vitest";
import { type HostileCatalog, startHostileCatalog } from "../../../src/sim/servers/hostile-catalog.js";
import { digests, slash } from "../sweep-support.js";
import { eventually, type Harness, quiescent, startHarness } from "./harness.js";

let h: Harness | undefined;
let catalog: HostileCatalog | undefined;
afterEach(async () => {
  await h?.close();
  await catalog?.close();
  h = undefined;
  catalog = undefined;
});

const config = (budget = "") => `
defaults:
  approvers: [U0ALICE]
sweep:
  ratePerSecond: { catalog: 200, flink: 50, connect: 50 }
${budget}
`;

describe("a sweep of a hostile catalog in the bot", () => {
  it("does not follow a catalog that ignores ?parent=, posts a partial digest and lets go of its lock", async () => {
    catalog = await startHostileCatalog("ignore-parent");
    h = await startHarness("sweep-hostile-parent", {
      env: { ICEBERG_CATALOG_URL: catalog.url },
      botConfig: config(),
    });
    const harness = h;
    await slash(harness, "sweep");
    const [digest] = await eventually(() => digests(harness).length > 0 && digests(harness), "the digest");
    await quiescent(harness);
    expect(digest!.text).toMatch(/\(partial\)$/);
    expect(JSON.stringify(digest!.blocks)).toContain("ignore ?parent=");
    // config, the root listing, a table and a namespace listing for each of the two namespaces.
    expect(catalog.requests).toBeLessThanOrEqual(6);
    expect(await harness.bots[0]!.sweep.store.running()).toBeUndefined();
  });

  it("stops a listing whose next-page-token never ends after pagesPerListing pages", async () => {
    catalog = await startHostileCatalog("endless-token");
    h = await startHarness("sweep-hostile-token", {
      env: { ICEBERG_CATALOG_URL: catalog.url },
      botConfig: config("  budget: { pagesPerListing: 5 }"),
    });
    const harness = h;
    await slash(harness, "sweep");
    const [digest] = await eventually(() => digests(harness).length > 0 && digests(harness), "the digest");
    await quiescent(harness);
    const blocks = JSON.stringify(digest!.blocks);
    expect(digest!.text).toMatch(/\(partial\)$/);
    expect(blocks).toContain("next-page-token");
    // /v1/config, five pages of namespaces, a table and a namespace listing for each of the five.
    expect(catalog.requests).toBe(16);
    expect(await harness.bots[0]!.sweep.store.running()).toBeUndefined();
  });

  it("counts a table whose load is retried once against the tables budget, not twice", async () => {
    // Nine tables and a budget of nine: before, the retry counted sales.orders again and the last
    // table graded was left out as over the budget.
    h = await startHarness("sweep-retried-table", {
      scenario: "sweep-catalog",
      botConfig: config("  budget: { tables: 9 }"),
    });
    const harness = h;
    harness.lakehouse!.faults.inject({
      service: "catalog",
      method: "GET",
      path: "^/v1/.*/tables/orders$",
      kind: "status",
      status: 500,
      times: 1,
    });
    await slash(harness, "sweep");
    const [digest] = await eventually(() => digests(harness).length > 0 && digests(harness), "the digest");
    await quiescent(harness);
    // The first load failed and the retry read it.
    const loads = harness.lakehouse!.requests.filter(
      (r) => r.method === "GET" && /\/tables\/orders$/.test(r.path),
    );
    expect(loads.length).toBe(2);
    expect(digest!.text).toMatch(/^Sweep: 9 tables/);
    expect(digest!.text).not.toMatch(/\(partial\)$/);
  });

  it("waits out a 429 for as long as Retry-After says, without spending the task's attempts", async () => {
    catalog = await startHostileCatalog("rate-limited", { retryAfterSeconds: 2, limitedAnswers: 1 });
    h = await startHarness("sweep-hostile-429", {
      env: { ICEBERG_CATALOG_URL: catalog.url },
      botConfig: config(),
    });
    const harness = h;
    await slash(harness, "sweep");
    const [digest] = await eventually(() => digests(harness).length > 0 && digests(harness), "the digest");
    await quiescent(harness);
    expect(JSON.stringify(digest!.blocks)).not.toContain("Not read");
    const limited = catalog.log.findIndex((r) => r.status === 429);
    expect(limited).toBeGreaterThanOrEqual(0);
    const next = catalog.log[limited + 1];
    // A lower bound only: a busy machine can make the wait longer, never shorter.
    expect(next!.atMs - catalog.log[limited]!.atMs).toBeGreaterThanOrEqual(1900);
  });
});
