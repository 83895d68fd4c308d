// App Home: open incidents newest first with their status cards, then recently affected tables.

import type { RecurringTable } from "../../core/history/fleet.js";
import type { Digest } from "../../core/sweep/digest.js";
import type { IncidentStore } from "../store/incident-store.js";
import { recurringHomeBlocks } from "./render/recurring.js";
import { sweepHomeBlocks } from "./render/sweep-digest.js";
import type { Renderers } from "./renderers.js";
import { cardView, latestReport, threadPermalink } from "./slack-jobs.js";
import type { SlackClient } from "./web-client.js";

const WEEK_MS = 7 * 86_400_000;

export interface HomeDeps {
  client: Pick<SlackClient, "views" | "chat">;
  store: IncidentStore;
  render: Renderers;
  now: number;
  /** The latest sweep's digest, shown under the incidents. */
  latestSweep?: () => Promise<Digest | undefined>;
  /** Tables that failed more than once within the retention window (`days`). */
  recurring?: { tables: () => Promise<RecurringTable[]>; days: number };
}

export async function publishHome(deps: HomeDeps, userId: string): Promise<void> {
  const open = await deps.store.listOpen();
  const recent = await deps.store.recentTables(deps.now - WEEK_MS);
  const links = await Promise.all(open.map((incident) => threadPermalink(deps.client, incident)));
  // The card as the thread shows it: the same report, so the same age, colour and verdict.
  const reports = await Promise.all(open.map((incident) => latestReport(deps, incident)));
  const view = deps.render.appHome({
    nowMs: deps.now,
    open: open.map((incident, index) => ({
      ...cardView(incident, reports[index], deps.now),
      incidentId: incident.id,
      permalink: links[index],
    })),
    // Only the latest opening per table is kept, so the count is a lower bound.
    recentTables: recent.map((r) => ({ table: r.table, incidents: 1, lastOpenedAtMs: r.lastOpenedAt })),
  });
  // Within the view's 100 blocks: the recurring tables take one, the sweep's section at most seven.
  const extra = [];
  if (deps.recurring) {
    const tables = await deps.recurring.tables().catch(() => []);
    extra.push(...recurringHomeBlocks(tables, deps.recurring.days));
  }
  if (deps.latestSweep) {
    const digest = await deps.latestSweep().catch(() => undefined);
    extra.push(...sweepHomeBlocks(digest, deps.now));
  }
  if (extra.length > 0) view.blocks = [...view.blocks.slice(0, 100 - extra.length), ...extra];
  await deps.client.views.publish({ user_id: userId, view });
}
