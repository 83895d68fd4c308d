// The words for stored records a listing left out because this release cannot read them: one line,
// each record named once, with what to do. Slack (App Home, /iceberg status, /iceberg history) and
// the terminal (`iceberg-bot history`) say the same thing; each surface quotes names its own way.

/** A stored record a listing passed over: named to the person who asked, so a gap is never silent. */
export interface UnreadableRecord {
  kind: "incident" | "history";
  id: string;
  /** The table a history record belongs to. */
  table?: string;
  /** Written by a newer release (its format is above this release's). */
  newer: boolean;
}

/** Names past this many are counted, not listed: the line stays one line. */
const MAX_NAMED = 5;

const UPGRADE = "upgrade this bot to the newer release that wrote them";
const DAMAGED = "the bot's log names the damaged field (stored_record_invalid)";

/** Each record once (a listing may meet one twice), in the order met. */
function distinct(records: readonly UnreadableRecord[]): UnreadableRecord[] {
  const seen = new Map<string, UnreadableRecord>();
  for (const r of records) {
    const key = `${r.kind}\u0000${r.table ?? ""}\u0000${r.id}`;
    if (!seen.has(key)) seen.set(key, r);
  }
  return [...seen.values()];
}

/** The line, or undefined when every record was read; `quote` shows an id or a table name. */
export function unreadableWords(
  records: readonly UnreadableRecord[],
  quote: (name: string) => string,
): string | undefined {
  const all = distinct(records);
  if (all.length === 0) return undefined;
  const named = (r: UnreadableRecord) => {
    const what =
      r.kind === "incident"
        ? `incident ${quote(r.id)}`
        : `past incident ${quote(r.id)}${r.table ? ` of ${quote(r.table)}` : ""}`;
    return r.newer ? `${what} (newer release)` : what;
  };
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
