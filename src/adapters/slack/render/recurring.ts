// Tables that failed more than once in the retention window, with their recurring cause: a short
// section under App Home's incidents and in the sweep digest (core/history/fleet.ts).

import type { RecurringTable } from "../../../core/history/fleet.js";
import { causeWords } from "../../../core/words/labels.js";
import { slackWhen } from "../../render/times.js";
import type { KnownBlock } from "./block-kit.js";
import { section } from "./blocks.js";
import { escapeCode, truncateText } from "./limits.js";

const MAX_TABLES = 8;

/** One line per table (most incidents first), shared by App Home and the sweep digest. */
export function recurringBlocks(recurring: readonly RecurringTable[], days: number): KnownBlock[] {
  if (recurring.length === 0) return [];
  const lines = recurring.slice(0, MAX_TABLES).map((r) => {
    const cause = r.triage ? causeWords(r.triage, r.rootCause) : "different causes";
    return truncateText(
      `• \`${escapeCode(r.table)}\`: ${r.incidents} incidents, ${r.times}× ${cause}; last ${slackWhen(r.lastAtMs)}`,
      300,
    );
  });
  const more = recurring.length > MAX_TABLES ? `\n… and ${recurring.length - MAX_TABLES} more` : "";
  return [section(`*Failed more than once in the last ${days} days*\n${lines.join("\n")}${more}`)];
}
