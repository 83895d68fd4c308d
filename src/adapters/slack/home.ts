// App Home: open incidents newest first with their status cards, then recently affected tables.

import type { RecurringTable } from "../../core/history/fleet.js";
import type { Digest } from "../../core/sweep/digest.js";
import type { UnreadableRecord } from "../../services/ports.js";
import type { IncidentStore } from "../store/incident-store.js";
import { renderAppHome } from "./render/app-home.js";
import { context } from "./render/blocks.js";
import { escapeMrkdwn } from "./render/limits.js";
import { recurringHomeBlocks } from "./render/recurring.js";
import { cardViewOf } from "./render/story-view.js";
import { sweepHomeBlocks } from "./render/sweep-digest.js";
import { unreadableNote } from "./render/unreadable-note.js";
import { isNewer, threadPermalink } from "./slack-jobs.js";
import { loadStory, type StorySources } from "./story-source.js";
import type { SlackClient } from "./web-client.js";

const WEEK_MS = 7 * 86_400_000;

export interface HomeDeps {
  client: Pick<SlackClient, "chat">;
  store: IncidentStore;
  now: number;
  /** The latest sweep's digest, shown under the incidents. */
  latestSweep?: () => Promise<Digest | undefined>;
  /** Tables that failed more than once within the retention window (`days`). */
  recurring?: {
    tables: (onUnreadable: (record: UnreadableRecord) => void) => Promise<RecurringTable[]>;
    days: number;
  };
  /** Where the incident's story is read from besides the store (walks, playbooks, people). */
  story?: Omit<StorySources, "store">;
  /** Autopilot's mode, switch and shadow agreement per step, as lines (none when it is off). */
  autopilot?: () => Promise<string[]>;
  /** Closed incidents of every table, so the week's count per table is the one the history holds. */
  closed?: (
    onUnreadable: (record: UnreadableRecord) => void,
  ) => Promise<Array<{ table: string; incidentId: string; openedAtMs: number }>>;
}

/** The App Home view of the current state (the outbox's poster publishes it). */
export async function homeView(deps: HomeDeps): Promise<ReturnType<typeof renderAppHome>> {
  // Records passed over are named in the view, so the person sees the list has a gap.
  const unreadable: UnreadableRecord[] = [];
  const passedOver = (record: UnreadableRecord) => unreadable.push(record);
  const open = await deps.store.listOpen(undefined, (id, error) =>
    passedOver({ kind: "incident", id, newer: isNewer(error) }),
  );
  const recent = await deps.store.recentTables(deps.now - WEEK_MS);
  const links = await Promise.all(open.map((incident) => threadPermalink(deps.client, incident)));
  // The card as the thread shows it: the same story, so the same age, colour and step.
  const stories = await Promise.all(
    open.map((incident) => loadStory({ ...deps.story, store: deps.store }, incident)),
  );
  const closed = (await deps.closed?.(passedOver).catch(() => [])) ?? [];
  const view = renderAppHome({
    nowMs: deps.now,
    open: stories.map((story, index) => ({
      ...cardViewOf(story, deps.now),
      incidentId: story.incidentId,
      permalink: links[index],
    })),
    recentTables: recent.map((r) => ({
      table: r.table,
      incidents: weekCount(r.table, deps.now - WEEK_MS, open, closed),
      lastOpenedAtMs: r.lastOpenedAt,
    })),
  });
  // Within the view's 100 blocks: the recurring tables take one, the sweep's section at most seven.
  const extra = [];
  if (deps.recurring) {
    const tables = await deps.recurring.tables(passedOver).catch(() => []);
    extra.push(...recurringHomeBlocks(tables, deps.recurring.days));
  }
  if (deps.latestSweep) {
    const digest = await deps.latestSweep().catch(() => undefined);
    extra.push(...sweepHomeBlocks(digest, deps.now));
  }
  const autopilot = (await deps.autopilot?.().catch(() => [])) ?? [];
  if (autopilot.length > 0) extra.push(context(escapeMrkdwn(autopilot.join("\n"))));
  const note = unreadableNote(unreadable);
  if (note) extra.unshift(context(note));
  if (extra.length > 0) view.blocks = [...view.blocks.slice(0, 100 - extra.length), ...extra];
  return view;
}

/**
 * A table's incidents opened in the week, counted once each: the open ones and the closed ones the
 * history keeps, so "2 incidents" here is the count the recurring section states too.
 */
function weekCount(
  table: string,
  sinceMs: number,
  open: ReadonlyArray<{ id: string; table: string; openedAt: number }>,
  closed: ReadonlyArray<{ table: string; incidentId: string; openedAtMs: number }>,
): number {
  const ids = new Set<string>();
  for (const i of open) if (i.table === table && i.openedAt >= sinceMs) ids.add(i.id);
  for (const h of closed) if (h.table === table && h.openedAtMs >= sinceMs) ids.add(h.incidentId);
  return Math.max(1, ids.size);
}
