// What a check could not read, in words: "the table's snapshots (Iceberg REST catalog: 503 …)".
// The verification message, the could-not-check note and the thread's hand-back all say it so.

import type { SourceName } from "../../../core/ids.js";
import { SOURCE_WORDS, sourceSaid } from "../../../core/words/labels.js";
import { escapeMrkdwn } from "./limits.js";

export function unseenWords(unseen: { source: string; reason: string }): string {
  const label = SOURCE_WORDS[unseen.source as SourceName] ?? unseen.source;
  const what = unseen.source === "catalog" ? "the table's snapshots" : label;
  return `${what} (${escapeMrkdwn(sourceSaid(label, unseen.reason))})`;
}
