// Names the catalog does not know, against a catalog of 2,000 namespaces: the walk that looks for
// them is cut at a bounded number of requests, sends a few at a time, and is shared by every
// look-up in the next minute, so a storm of unknown tables (the incident cap allows 60 a minute)
// walks the catalog once instead of once each.

import { afterEach, describe, expect, it } from "vitest";
import { createCatalogClient } from "../../src/adapters/evidence/catalog/client.js";
import { loadResolvedTable, WALK_CACHE_MS } from "../../src/services/investigate/resolve.js";
import { type HostileCatalog, startHostileCatalog } from "../../src/sim/servers/hostile-catalog.js";

let catalog: HostileCatalog | undefined;
afterEach(async () => {
  await catalog?.close();
  catalog = undefined;
});

describe("unknown tables in a large catalog", () => {
  it("cost one bounded walk a minute, a few requests at a time, and each its own two look-ups", async () => {
    catalog = await startHostileCatalog("many-namespaces", { namespaces: 2000 });
    const client = counted(createCatalogClient({ url: catalog.url }));
    let t = 1_000_000;
    const now = () => t;

    const lookUp = (name: string) =>
      loadResolvedTable(client, name, now).then(
        () => undefined,
        (error: unknown) => error,
      );
    const first = await lookUp("db.nosuch0");
    expect(first).toMatchObject({
      code: "table_not_found",
      message: expect.stringMatching(/search cut short/),
    });
    const firstCost = catalog.requests;
    // The config, the table load, its namespace's listing, the root listing and at most 100 namespaces' tables.
    expect(firstCost).toBeLessThanOrEqual(105);

    // 59 more unknown tables within the minute: no walk of their own.
    for (let i = 1; i < 60; i++) {
      t += 500;
      expect(await lookUp(`db.nosuch${i}`)).toMatchObject({ code: "table_not_found" });
    }
    const minuteCost = catalog.requests;
    expect(minuteCost - firstCost).toBeLessThanOrEqual(59 * 2);
    expect(client.maxInFlight()).toBeLessThanOrEqual(8);

    // A minute on, the catalog is walked again (it may have the table by now).
    t += WALK_CACHE_MS;
    await lookUp("db.nosuch60");
    expect(catalog.requests - minuteCost).toBeGreaterThan(50);
    expect(catalog.requests - minuteCost).toBeLessThanOrEqual(104);
    expect(client.maxInFlight()).toBeLessThanOrEqual(8);
  });
});

/** The catalog client as it is, counting how many of its calls run at once (what the bot sends at once). */
function counted<T extends object>(port: T): T & { maxInFlight(): number } {
  let now = 0;
  let max = 0;
  return new Proxy(port, {
    get(target, key, receiver) {
      if (key === "maxInFlight") return () => max;
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        now++;
        max = Math.max(max, now);
        try {
          return await value.apply(target, args);
        } finally {
          now--;
        }
      };
    },
  }) as T & { maxInFlight(): number };
}
