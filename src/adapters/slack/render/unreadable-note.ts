// The one line that names the stored records a listing left out (App Home, /iceberg status,
// /iceberg history): each named once, with what to do, so a gap in a list is never silent and
// never costs the person the rest of the answer.

import type { UnreadableRecord } from "../../../services/ports.js";
import type { SlackMessage } from "./block-kit.js";
import { context } from "./blocks.js";
import { escapeMrkdwn } from "./limits.js";

/** Names past this many are counted, not listed: the line stays one line. */
const MAX_NAMED = 5;

/** Each record once (a listing may meet one twice), in the order met. */
function distinct(records: readonly UnreadableRecord[]): UnreadableRecord[] {
  const seen = new Map<string, UnreadableRecord>();
  for (const r of records) {
    const key = `${r.kind}\u0000${r.table ?? ""}\u0000${r.id}`;
    if (!seen.has(key)) seen.set(key, r);
  }
  return [...seen.values()];
}

function named(r: UnreadableRecord): string {
  const id = `\`${escapeMrkdwn(r.id)}\``;
  const what =
    r.kind === "incident"
      ? `incident ${id}`
      : `past incident ${id}${r.table ? ` of \`${escapeMrkdwn(r.table)}\`` : ""}`;
  return r.newer ? `${what} (newer release)` : what;
}

const UPGRADE = "upgrade this bot to the newer release that wrote them";
const DAMAGED = "the bot's log names the damaged field (stored_record_invalid)";

/** The note as mrkdwn, or undefined when every record was read. */
export function unreadableNote(records: readonly UnreadableRecord[]): string | undefined {
  const all = distinct(records);
  if (all.length === 0) return undefined;
  const one = all.length === 1;
  const names = all.slice(0, MAX_NAMED).map(named).join(", ");
  const more = all.length > MAX_NAMED ? ` and ${all.length - MAX_NAMED} more` : "";
  const newer = all.filter((r) => r.newer).length;
  const why =
    newer === all.length
      ? `Written by a newer iceberg-bot: ${UPGRADE}`
      : newer === 0
        ? `Written by a release this one cannot read, or damaged: ${DAMAGED}`
        : `For those of a newer release, ${UPGRADE}; for the others, ${DAMAGED}`;
  return `${all.length} ${one ? "record" : "records"} could not be read and ${one ? "is" : "are"} left out of this list: ${names}${more}. ${why} (docs/operations.md, Upgrading and rolling back).`;
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
