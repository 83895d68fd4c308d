// The sweep in one process against catalogs that would keep a naive walk going forever: one that
// ignores ?parent=, one whose next-page-token never ends, one that answers 429 with Retry-After.
// Each sweep must end on its own, say what it left out and why, and keep to its request rate.

import { afterEach, describe, expect, it } from "vitest";
import { createCatalogClient } from "../../src/adapters/evidence/catalog/client.js";
import { DEFAULT_BUDGET } from "../../src/core/sweep/budget.js";
import { createCatalogMeter } from "../../src/services/sweep/catalog-budget.js";
import { runSweep } from "../../src/services/sweep/run-sweep.js";
import { type HostileCatalog, startHostileCatalog } from "../../src/sim/servers/hostile-catalog.js";

let catalog: HostileCatalog | undefined;
afterEach(async () => {
  await catalog?.close();
  catalog = undefined;
});

/** A clock that only moves when the sweep sleeps, so nothing here races the wall clock. */
function fakeTime() {
  let t = 0;
  const sleeps: number[] = [];
  return {
    clock: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
    sleeps,
  };
}

describe("a bounded sweep", () => {
  it("does not follow a catalog that ignores ?parent= round its cycle", async () => {
    catalog = await startHostileCatalog("ignore-parent");
    const time = fakeTime();
    const report = await runSweep({ catalog: createCatalogClient({ url: catalog.url }) }, () => 0, {
      playbooks: [],
      ...time,
    });
    // config, the root listing, then one table listing and one namespace listing per namespace.
    expect(catalog.requests).toBe(6);
    expect(report.skipped).toEqual([
      expect.objectContaining({ reason: "outside-parent", count: 4, why: expect.stringMatching(/parent/) }),
    ]);
  });

  it("stops a listing whose next-page-token never ends at pagesPerListing, and the walk at its budget", async () => {
    catalog = await startHostileCatalog("endless-token");
    const time = fakeTime();
    const report = await runSweep({ catalog: createCatalogClient({ url: catalog.url }) }, () => 0, {
      playbooks: [],
      limits: { ...DEFAULT_BUDGET, pagesPerListing: 5, requests: 12 },
      ...time,
    });
    // /v1/config, then exactly the twelve requests of the budget.
    expect(catalog.requests).toBe(13);
    const reasons = Object.fromEntries((report.skipped ?? []).map((s) => [s.reason, s.count]));
    expect(reasons.pages).toBeGreaterThanOrEqual(1);
    expect(reasons.requests).toBeGreaterThanOrEqual(1);
    expect(report.skipped?.find((s) => s.reason === "pages")?.why).toMatch(/next-page-token/);
  });

  it("waits out a 429 for as long as Retry-After says, then carries on", async () => {
    catalog = await startHostileCatalog("rate-limited", { retryAfterSeconds: 7, limitedAnswers: 2 });
    const time = fakeTime();
    const report = await runSweep({ catalog: createCatalogClient({ url: catalog.url }) }, () => 0, {
      playbooks: [],
      ...time,
    });
    expect(time.sleeps.filter((ms) => ms === 7000)).toHaveLength(2);
    expect(report.skipped?.map((s) => s.reason)).toEqual(["outside-parent"]);
    expect(report.errors).toEqual([]);
  });

  it("keeps to its request rate", async () => {
    const time = fakeTime();
    const meter = createCatalogMeter({ limits: DEFAULT_BUDGET, perSecond: 5, ...time });
    for (let i = 0; i < 25; i++) await meter.request(async () => i);
    // A burst of one second's worth, then one request every 200 ms.
    expect(time.clock()).toBeGreaterThanOrEqual(20 * 200 - 1);
    expect(meter.spent.requests).toBe(25);
  });

  it("stops at its time budget", async () => {
    const time = fakeTime();
    const meter = createCatalogMeter({
      limits: { ...DEFAULT_BUDGET, timeMs: 1000 },
      perSecond: 1,
      ...time,
    });
    const sent: number[] = [];
    await expect(
      (async () => {
        for (let i = 0; i < 10; i++) await meter.request(async () => sent.push(i));
      })(),
    ).rejects.toMatchObject({ code: "budget_exhausted", details: { limit: "time" } });
    expect(sent.length).toBeLessThanOrEqual(2);
  });
});
