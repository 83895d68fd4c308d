// Slack's Block Kit limits in one place, and the helpers every renderer uses to stay inside them.
// Anything that came from outside (table names, exception lines, property values) goes through
// escapeMrkdwn (or escapeCode inside code) so it can neither mention anyone, link, nor change the
// formatting; see neutralize.ts.

import { groupDigits } from "../../../core/plural.js";
import { hideAddresses, neutralizeCode, neutralizeMrkdwn, stripInvisible } from "./neutralize.js";

export const LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  sectionText: 3000,
  fieldText: 2000,
  headerText: 150,
  buttonText: 75,
  actionId: 255,
  buttonValue: 2000,
  contextElements: 10,
  messageText: 40_000,
  modalTitle: 24,
  privateMetadata: 3000,
  optionText: 75,
} as const;

/** Outside text for mrkdwn prose: entities, inert markup, no controls, bidi or hidden characters. */
export function escapeMrkdwn(text: string): string {
  return neutralizeMrkdwn(text);
}

/** Outside text longer than this, or on several lines, is shown as a code block. */
const LONG_OUTSIDE_TEXT = 200;

/**
 * Outside text that may be long (exception messages, upstream error bodies): as prose when short,
 * else in a ``` block, where nothing in it can format and it reads as the upstream wrote it.
 */
export function escapeOutside(text: string): string {
  const clean = stripInvisible(text).trim();
  if (clean.length <= LONG_OUTSIDE_TEXT && !clean.includes("\n")) return escapeMrkdwn(clean);
  return `\`\`\`${escapeCodeBlock(hideAddresses(clean))}\`\`\``;
}

/** For text that sits inside `inline code`: a backtick would end the code span early. */
export function escapeCode(text: string): string {
  return neutralizeCode(text).replace(/`/g, "'");
}

/** For text inside a ``` block: only a triple backtick could close it. */
export function escapeCodeBlock(text: string): string {
  return neutralizeCode(text).replace(/```/g, "`\u200b``");
}

/**
 * Cuts text to max characters, ending with "… (N more characters)". Never splits an escape such
 * as &amp; or a surrogate pair, and closes a ``` block it cut open so the rest still renders.
 */
export function truncateText(text: string, max: number = LIMITS.sectionText): string {
  if (text.length <= max) return text;
  let budget = max - 30;
  while (budget > 0) {
    const cut = safeCut(text, budget);
    const open = (cut.match(/```/g) ?? []).length % 2 === 1;
    const suffix = `${open ? "\n```" : ""}\n… (${groupDigits(text.length - cut.length)} more characters)`;
    const over = cut.length + suffix.length - max;
    if (over <= 0) return cut + suffix;
    budget -= over;
  }
  return `… (${groupDigits(text.length)} more characters)`.slice(0, max);
}

function safeCut(text: string, keep: number, entities = true): string {
  let end = Math.max(0, Math.min(keep, text.length));
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  const amp = entities ? text.lastIndexOf("&", end - 1) : -1;
  if (amp >= 0 && amp > end - 6) {
    const semi = text.indexOf(";", amp);
    if (semi < 0 || semi >= end) end = amp;
  }
  // Our own links and mentions (<url|label>, <@U1>) must not be cut in half either.
  const lt = entities ? text.lastIndexOf("<", end - 1) : -1;
  if (lt >= 0 && text.lastIndexOf(">", end - 1) < lt) end = lt;
  return text.slice(0, end);
}

/** For plain_text fields (headers, buttons, titles): a short cut with a single ellipsis. */
export function clipPlain(text: string, max: number): string {
  // Plain text shows no markup, but controls and bidi overrides would still reorder or hide it.
  const clean = stripInvisible(text);
  if (clean.length <= max) return clean;
  return `${safeCut(clean, max - 1, false)}…`;
}

export interface PackedLines {
  /** Section texts, each within maxChars. */
  texts: string[];
  /** How many of the lines made it in; the rest were left out. */
  used: number;
}

/**
 * Packs whole lines into at most maxSections texts of at most maxChars each, reserving room in
 * the last one for a "… and N more" line. A single line longer than maxChars is truncated.
 */
export function packLines(
  lines: string[],
  options: { maxSections: number; maxChars?: number; reserve?: number },
): PackedLines {
  const maxChars = options.maxChars ?? LIMITS.sectionText;
  const reserve = options.reserve ?? 40;
  const texts: string[] = [];
  let current = "";
  let used = 0;
  for (const raw of lines) {
    const line = truncateText(raw, maxChars - reserve);
    const joined = current === "" ? line : `${current}\n${line}`;
    if (joined.length <= maxChars - reserve) {
      current = joined;
      used += 1;
      continue;
    }
    if (texts.length + 1 >= options.maxSections) break;
    texts.push(current);
    current = line;
    used += 1;
  }
  if (current !== "") texts.push(current);
  return { texts, used };
}

/** A Slack user (U…/W…) or user group (S…) id as a mention; anything else as escaped text. */
export function mention(id: string): string {
  if (/^[UW][A-Z0-9]+$/.test(id)) return `<@${id}>`;
  if (/^S[A-Z0-9]+$/.test(id)) return `<!subteam^${id}>`;
  return escapeMrkdwn(id);
}
