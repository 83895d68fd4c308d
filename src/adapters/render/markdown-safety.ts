// Markdown built from upstream text must not turn a message into links, headings or broken tables.

import { cleanText, defuseLinks, oneLine } from "./text-safety.js";

/** What opens a block when a line starts with it: a heading, quote, list item, rule or setext underline. */
const BLOCK_START = /^(?:[#>+=-]|\d+(?=[.)]))/;

/**
 * Inline text: one line, with the characters that could start emphasis, code, links, HTML, an
 * entity or a table cell escaped, links and addresses defused (defuseLinks), and a first character
 * that could open a block (`#`, `>`, `-`, `1.`) escaped, since the text may begin a line or a list
 * item. Intraword underscores (application_1700_0412) cannot start emphasis, so they stay as they
 * are for readability.
 */
export function mdText(value: string, max = 240): string {
  return defuseLinks(oneLine(value, max))
    .replace(/[\\`*[\]<|~&]/g, (ch) => `\\${ch}`)
    .replace(/(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, "\\_")
    .replace(BLOCK_START, (start) => (/\d/.test(start) ? `${start}\\` : `\\${start}`));
}

/** Inline code that survives backticks inside the value. */
export function mdCode(value: string, max = 240): string {
  const text = oneLine(value, max);
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longestRun + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A fenced block whose fence is longer than any backtick run in the content. */
export function mdCodeBlock(value: string, language = ""): string {
  const text = cleanText(value).replace(/\n+$/, "");
  const longestRun = Math.max(0, ...(text.match(/`{3,}/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  const lang = /^[a-z0-9-]+$/.test(language) ? language : "";
  return `${fence}${lang}\n${text}\n${fence}`;
}
