// The App Home tab: open incidents newest first, each as its status card with a link to the thread,
// then the tables that had incidents in the last 7 days.

import { groupDigits, plural } from "../../../core/plural.js";
import { slackWhen } from "../../render/times.js";
import type { HomeView, KnownBlock } from "./block-kit.js";
import { andMore, context, divider, header, packedSections, section } from "./blocks.js";
import { escapeCode, LIMITS } from "./limits.js";
import { statusCardBlocks } from "./status-card.js";
import { type ListedIncident, threadLink } from "./status-list.js";

/** The week App Home counts a table's recent incidents in. */
export const RECENT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

export interface AppHomeView {
  /** Open incidents; rendered newest first whatever the order given. */
  open: ListedIncident[];
  /** Tables with incidents recently; entries older than 7 days before nowMs are left out. */
  recentTables: Array<{ table: string; incidents: number; lastOpenedAtMs: number }>;
  nowMs: number;
}

function incidentBlocks(incident: ListedIncident, nowMs: number): KnownBlock[] {
  // Slack refuses a view in which two blocks share a block_id, and every card names its button
  // rows alike: on App Home each is named for its incident too.
  const id = incident.story.incidentId;
  const blocks = statusCardBlocks(incident.story, nowMs).map((b) =>
    b.block_id === undefined ? b : { ...b, block_id: `${b.block_id}:${id}` },
  );
  const link = threadLink(incident.permalink, "Open the thread");
  if (link !== "") blocks.push(context(link));
  blocks.push(divider());
  return blocks;
}

function recentBlocks(view: AppHomeView): KnownBlock[] {
  const recent = view.recentTables
    .filter((t) => t.lastOpenedAtMs >= view.nowMs - RECENT_WINDOW_MS)
    .sort((a, b) => b.lastOpenedAtMs - a.lastOpenedAtMs);
  const blocks: KnownBlock[] = [header("Tables with incidents in the last 7 days")];
  if (recent.length === 0) return [...blocks, section("None.")];
  const lines = recent.map(
    (t) =>
      `\`${escapeCode(t.table)}\`: ${plural(t.incidents, "incident")}, last opened ${slackWhen(t.lastOpenedAtMs, view.nowMs)}`,
  );
  return [...blocks, ...packedSections(lines, { maxSections: 3, more: "more tables" })];
}

export function renderAppHome(view: AppHomeView): HomeView {
  const open = [...view.open].sort((a, b) => b.story.openedAtMs - a.story.openedAtMs);
  const tail = recentBlocks(view);
  const blocks: KnownBlock[] = [header(`Open incidents (${groupDigits(open.length)})`)];
  if (open.length === 0) blocks.push(section(":white_check_mark: No open incidents."), divider());
  // Keep room for the recent tables and one "… and N more" line.
  const budget = LIMITS.viewBlocks - tail.length - 1;
  let shown = 0;
  for (const incident of open) {
    const next = incidentBlocks(incident, view.nowMs);
    if (blocks.length + next.length > budget) break;
    blocks.push(...next);
    shown += 1;
  }
  if (shown < open.length)
    blocks.push(andMore(open.length - shown, "more open incidents; `/iceberg status` lists them all"));
  return { type: "home", blocks: [...blocks, ...tail] };
}
