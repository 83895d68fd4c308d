// App Home counts a table's incidents once: with one incident open and one closed this week on the
// same table, every line that counts that table's incidents says 2 (not "1 incident" in one place
// and "2 incidents" in another on one screen). Real Redis stores, the views the poster sends.

import { afterEach, describe, expect, it } from "vitest";
import { SlackViews } from "../../../src/adapters/slack/views.js";
import type { SlackClient } from "../../../src/adapters/slack/web-client.js";
import { HistoryStore } from "../../../src/adapters/store/history-store.js";
import { IncidentStore } from "../../../src/adapters/store/incident-store.js";
import { closedIncident } from "../../support/history-records.js";
import { type TestRedisScope, testRedisScope } from "../../support/redis.js";

const NOW = Date.parse("2026-11-29T10:00:00Z");
const HOUR = 3_600_000;
let scope: TestRedisScope | undefined;
afterEach(async () => {
  await scope?.cleanup();
  scope = undefined;
});

/** Every text of the view, one per line. */
function shown(value: unknown): string {
  const parts: string[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object")
      for (const [key, child] of Object.entries(v)) {
        if (key === "text" && typeof child === "string") parts.push(child);
        else visit(child);
      }
  };
  visit(value);
  return parts.join("\n");
}

describe("App Home's count of a table's incidents", () => {
  it("says the same number wherever it counts one table's incidents", async () => {
    scope = testRedisScope("home-counts");
    const store = new IncidentStore(scope.redis, { namespace: scope.namespace });
    const history = new HistoryStore(scope.redis, {
      namespace: scope.namespace,
      resolvedDays: 30,
      now: () => NOW,
    });
    // Yesterday's incident, closed and kept in the history; today's, open.
    const first = await store.openOrJoin("db.events", "C1", NOW - 26 * HOUR);
    await store.close(first.incident, "resolved", NOW - 25 * HOUR);
    await history.save(closedIncident(first.incident.id, NOW - 25 * HOUR, { openedAtMs: NOW - 26 * HOUR }));
    await store.openOrJoin("db.events", "C1", NOW - HOUR);

    const client = {
      chat: { getPermalink: async () => ({ ok: true, permalink: "https://slack.example/thread" }) },
    } as unknown as SlackClient;
    const views = new SlackViews({
      client,
      store,
      now: () => NOW,
      history,
      recurringDays: 30,
    });
    const home = shown((await views.home()).blocks);
    const counts = [...home.matchAll(/db\.events\S*:?\s*(\d+) incidents?/g)].map((m) => Number(m[1]));
    expect(counts.length, home).toBeGreaterThan(0);
    expect(counts, home).toEqual(counts.map(() => 2));
  });
});
