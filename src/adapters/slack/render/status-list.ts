// `/iceberg status`: every open incident on one line, newest first, with a link to its thread.

import { groupDigits, plural } from "../../../core/plural.js";
import type { OpenIncidentView, StatusListView } from "../../../services/view-models.js";
import type { KnownBlock, SlackMessage } from "./block-kit.js";
import { packedSections, section } from "./blocks.js";
import { escapeMrkdwn, LIMITS } from "./limits.js";
import { ageWords, HEALTH_EMOJI, openItemsWords, stateLabel, stepPosition } from "./status-card.js";

/** A link only for http(s) permalinks we were given; anything else is left out. */
export function threadLink(permalink: string | undefined, label = "thread"): string {
  if (permalink === undefined || !/^https?:\/\/[^\s|<>]+$/.test(permalink)) return "";
  return `<${permalink}|${label}>`;
}

/** One incident as its card says it: the same colour, state and age (see ageWords). */
function line(item: OpenIncidentView, nowMs: number): string {
  const view = { ...item, nowMs };
  const parts = [
    `${HEALTH_EMOJI[item.health]} *${escapeMrkdwn(item.table)}* — ${ageWords(view)}`,
    stateLabel(view),
  ];
  if (item.step !== undefined) parts.push(`${stepPosition(item.step)}: ${escapeMrkdwn(item.step.title)}`);
  const items = openItemsWords(item);
  if (items !== undefined) parts.push(items);
  const link = threadLink(item.permalink);
  if (link !== "") parts.push(link);
  return parts.join(" · ");
}

export function renderStatusList(view: StatusListView): SlackMessage {
  if (view.incidents.length === 0) {
    return {
      text: "No open incidents",
      blocks: [section(":white_check_mark: No open incidents. Every watched table is committing.")],
    };
  }
  const incidents = [...view.incidents].sort((a, b) => b.openedAtMs - a.openedAtMs);
  const blocks: KnownBlock[] = [
    section(`*Open incidents (${groupDigits(incidents.length)})*`),
    ...packedSections(
      incidents.map((i) => line(i, view.nowMs)),
      { maxSections: LIMITS.messageBlocks - 2 },
    ),
  ];
  return { text: plural(incidents.length, "open incident"), blocks };
}
