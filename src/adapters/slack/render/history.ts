// `/iceberg history <table>`: the audit trail, oldest first; when it is long the most recent
// entries are kept and the top line says how many earlier ones were left out.

import type { IncidentHistory } from "../../../core/history/record.js";
import { formatDuration } from "../../../core/words/duration.js";
import { causeWords, stepWords } from "../../../core/words/labels.js";
import type { HistoryEntry, HistoryView } from "../../../services/view-models.js";
import { slackWhen } from "../../render/times.js";
import type { KnownBlock, SlackMessage } from "./block-kit.js";
import { andMore, section } from "./blocks.js";
import { escapeCode, escapeMrkdwn, mention, packLines, truncateText } from "./limits.js";

/** Entries shown before "… and N more". */
const MAX_ENTRIES = 30;
const MAX_SECTIONS = 10;
const MAX_LINE = 600;

function actorText(actor: string): string {
  return actor === "bot" ? "iceberg-bot" : mention(actor);
}

function entryLine(entry: HistoryEntry): string {
  const step = entry.stepId === undefined ? "" : ` *${stepWords(entry.stepId)}*`;
  const detail = entry.detail === undefined || entry.detail === "" ? "" : `: ${escapeMrkdwn(entry.detail)}`;
  return `${slackWhen(entry.atMs)} ${actorText(entry.actor)} ${escapeMrkdwn(entry.action)}${step}${detail}`;
}

const MAX_INCIDENTS = 10;

/** "• Nov 12 commit conflict (competing appends): fixed by *raise commit retries* in 6 min". */
function incidentLine(i: IncidentHistory): string {
  const what = i.triage ? causeWords(i.triage, i.rootCause) : "incident";
  const fixed = i.steps.find((s) => s.outcome === "fixed");
  const outcome = fixed
    ? `fixed by *${stepWords(fixed.stepId)}*${fixed.recoveredAfterMs !== undefined ? ` in ${formatDuration(fixed.recoveredAfterMs)}` : ""}`
    : i.state === "stopped"
      ? "stopped without a fix"
      : "resolved without a step";
  const notHelped = i.steps.filter((s) => s.outcome === "did-not-help").map((s) => stepWords(s.stepId));
  return `• ${slackWhen(i.openedAtMs)} ${escapeMrkdwn(what)}: ${outcome}${notHelped.length > 0 ? `; did not help: ${notHelped.join(", ")}` : ""}`;
}

/** Past incidents, newest first, each with the step that fixed it. */
function incidentBlocks(incidents: readonly IncidentHistory[]): KnownBlock[] {
  if (incidents.length === 0) return [];
  const newest = [...incidents].sort((a, b) => b.openedAtMs - a.openedAtMs);
  const shown = newest.slice(0, MAX_INCIDENTS).map((i) => truncateText(incidentLine(i), MAX_LINE));
  const blocks: KnownBlock[] = [section(`*Past incidents, newest first*\n${shown.join("\n")}`)];
  if (newest.length > shown.length) blocks.push(andMore(newest.length - shown.length, "older incidents"));
  return blocks;
}

export function renderHistory(view: HistoryView): SlackMessage {
  const table = escapeCode(view.table);
  const past = incidentBlocks(view.incidents ?? []);
  if (view.entries.length === 0 && past.length > 0) {
    return {
      text: `History of ${escapeMrkdwn(view.table)}: ${view.incidents?.length ?? 0} incidents`,
      blocks: [section(`*History of \`${table}\`*`), ...past],
    };
  }
  if (view.entries.length === 0) {
    return {
      text: `No history for ${escapeMrkdwn(view.table)}`,
      blocks: [section(`Nothing has happened on \`${table}\` yet: no incidents, proposals or changes.`)],
    };
  }
  const sorted = [...view.entries].sort((a, b) => a.atMs - b.atMs);
  const lines = sorted.map((e) => truncateText(entryLine(e), MAX_LINE));
  // The newest entries matter most: drop the oldest until the rest fit, then show them in time order.
  let first = Math.max(0, lines.length - MAX_ENTRIES);
  let packed = packLines(lines.slice(first), { maxSections: MAX_SECTIONS });
  while (packed.used < lines.length - first) {
    first += lines.length - first - packed.used;
    packed = packLines(lines.slice(first), { maxSections: MAX_SECTIONS });
  }
  const blocks: KnownBlock[] = [section(`*History of \`${table}\`*`), ...past];
  if (first > 0) blocks.push(andMore(first, "earlier entries"));
  blocks.push(...packed.texts.map((t) => section(t)));
  return { text: `History of ${escapeMrkdwn(view.table)}: ${sorted.length} entries`, blocks };
}
