// The line naming the stored records a Slack listing left out (App Home, /iceberg status,
// /iceberg history), in the words of core/words/unreadable.ts, with names as inline code.

import { type UnreadableRecord, unreadableWords } from "../../../core/words/unreadable.js";
import type { SlackMessage } from "./block-kit.js";
import { context } from "./blocks.js";
import { escapeMrkdwn } from "./limits.js";

/** The note as mrkdwn, or undefined when every record was read. */
export function unreadableNote(records: readonly UnreadableRecord[]): string | undefined {
  return unreadableWords(records, (name) => `\`${escapeMrkdwn(name)}\``);
}

/** The message with the note under it, unchanged when every record was read. */
export function withUnreadableNote(
  message: SlackMessage,
  records: readonly UnreadableRecord[],
): SlackMessage {
  const note = unreadableNote(records);
  if (!note) return message;
  return { text: `${message.text}\n${note}`, blocks: [...message.blocks, context(note)] };
}
