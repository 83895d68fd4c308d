// `/iceberg history <table>`: the audit trail, oldest first; when it is long the most recent
// entries are kept and the top line says how many earlier ones were left out.

import { slackWhen } from "../../render/times.js";
import type { KnownBlock, SlackMessage } from "./block-kit.js";
import { context, section } from "./blocks.js";
import { mention, STEP_TITLES } from "./labels.js";
import { escapeCode, escapeMrkdwn, formatCount, packLines, truncateText } from "./limits.js";
import type { HistoryEntry, HistoryView } from "./view-models.js";

export type { HistoryView } from "./view-models.js";

const DEFAULT_MAX_ENTRIES = 30;
const MAX_SECTIONS = 10;
const MAX_LINE = 600;

function actorText(actor: string): string {
  return actor === "bot" ? "iceberg-bot" : mention(actor);
}

function entryLine(entry: HistoryEntry): string {
  const step = entry.stepId === undefined ? "" : ` *${STEP_TITLES[entry.stepId]}*`;
  const detail = entry.detail === undefined || entry.detail === "" ? "" : `: ${escapeMrkdwn(entry.detail)}`;
  return `${slackWhen(entry.atMs)} ${actorText(entry.actor)} ${escapeMrkdwn(entry.action)}${step}${detail}`;
}

export function renderHistory(view: HistoryView): SlackMessage {
  const table = escapeCode(view.table);
  if (view.entries.length === 0) {
    return {
      text: `No history for ${escapeMrkdwn(view.table)}`,
      blocks: [section(`Nothing has happened on \`${table}\` yet: no incidents, proposals or changes.`)],
    };
  }
  const sorted = [...view.entries].sort((a, b) => a.atMs - b.atMs);
  const max = Math.max(1, view.maxEntries ?? DEFAULT_MAX_ENTRIES);
  const lines = sorted.map((e) => truncateText(entryLine(e), MAX_LINE));
  // The newest entries matter most: drop the oldest until the rest fit, then show them in time order.
  let first = Math.max(0, lines.length - max);
  let packed = packLines(lines.slice(first), { maxSections: MAX_SECTIONS });
  while (packed.used < lines.length - first) {
    first += lines.length - first - packed.used;
    packed = packLines(lines.slice(first), { maxSections: MAX_SECTIONS });
  }
  const blocks: KnownBlock[] = [section(`*History of \`${table}\`*`)];
  if (first > 0) blocks.push(context(`… and ${formatCount(first)} earlier entries`));
  blocks.push(...packed.texts.map((t) => section(t)));
  return { text: `History of ${escapeMrkdwn(view.table)}: ${sorted.length} entries`, blocks };
}
