// `/iceberg status`: every open incident on one line, newest first, with a link to its thread.

import { groupDigits, plural } from "../../../core/plural.js";
import type { IncidentStory } from "../../../core/story/model.js";
import type { KnownBlock, SlackMessage } from "./block-kit.js";
import { packedSections, section } from "./blocks.js";
import { escapeMrkdwn, LIMITS } from "./limits.js";
import { ageWords, HEALTH_EMOJI, openItemsWords, stateLabel, titleOf } from "./status-card.js";

/** A link only for http(s) permalinks we were given; anything else is left out. */
export function threadLink(permalink: string | undefined, label = "thread"): string {
  if (permalink === undefined || !/^https?:\/\/[^\s|<>]+$/.test(permalink)) return "";
  return `<${permalink}|${label}>`;
}

/**
 * An open incident as `/iceberg status` and App Home list it: its story, with the thread's link
 * (chat.getPermalink of its root); the list gives the time.
 */
export interface ListedIncident {
  story: IncidentStory;
  permalink?: string;
}

/** One incident as its card says it: the same colour, state and age (see ageWords). */
function line({ story, permalink }: ListedIncident, nowMs: number): string {
  const parts = [
    `${HEALTH_EMOJI[story.health]} *${escapeMrkdwn(story.table)}* — ${ageWords(story, nowMs)}`,
    stateLabel(story),
  ];
  if (story.step !== undefined) parts.push(`step ${story.step.index}: ${escapeMrkdwn(titleOf(story.step))}`);
  const items = openItemsWords(story);
  if (items !== undefined) parts.push(items);
  const link = threadLink(permalink);
  if (link !== "") parts.push(link);
  return parts.join(" · ");
}

export function renderStatusList(view: { incidents: ListedIncident[]; nowMs: number }): SlackMessage {
  if (view.incidents.length === 0) {
    return {
      text: "No open incidents",
      blocks: [section(":white_check_mark: No open incidents. Every watched table is committing.")],
    };
  }
  const incidents = [...view.incidents].sort((a, b) => b.story.openedAtMs - a.story.openedAtMs);
  const blocks: KnownBlock[] = [
    section(`*Open incidents (${groupDigits(incidents.length)})*`),
    ...packedSections(
      incidents.map((i) => line(i, view.nowMs)),
      { maxSections: LIMITS.messageBlocks - 2 },
    ),
  ];
  return { text: plural(incidents.length, "open incident"), blocks };
}
