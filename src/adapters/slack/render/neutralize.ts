// Outside text (job names, exception messages, connector names, labels, property values) must read
// as typed and never change how a message renders. Slack has no escape for its markup, so:
// - & < > become entities (no links, no <!channel>, no <@U…> mentions from outside);
// - a * _ ~ or ` that could open or close formatting becomes a look-alike that cannot; markers
//   inside a word (db.page_views) cannot format anything and are left as typed so names stay exact;
// - a line starting with > gets a soft hyphen in front, so it is not a quote (Slack quotes both
//   ">" and "&gt;" at a line start);
// - control characters, bidirectional overrides and isolates, and invisible characters that could
//   hide or reorder text are removed (zero-width joiners stay only inside emoji and scripts).
// `|` is left alone: it only means something inside <…>, and < is always escaped.
// Addresses of our evidence sources are internal: prose names the source ("the catalog at
// http://…" reads "the catalog") and the URL stays in the logs only. Other links and addresses
// from outside are defused (render/text-safety.ts defuseLinks: "https[:]//evil[.]example"), since
// Slack links a bare URL on its own.

import { defuseLinks } from "../../render/text-safety.js";

const LOOK_ALIKES: Record<string, string> = {
  "*": "\u2217", // ∗ asterisk operator
  _: "\u02cd", // ˍ modifier letter low macron
  "~": "\u223c", // ∼ tilde operator
  "`": "\u02cb", // ˋ modifier letter grave accent
};

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;
const INVISIBLE = /[\u200b\u2060\ufeff\u00ad\u180e]/g;
const JOINERS = /[\u200c\u200d]/g;
const WORD = /[\p{L}\p{N}]/u;
const SPACE = /\s/u;

/** Any character stripInvisible changes: most text has none, and is returned after one test. */
const ANY_TO_STRIP =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b-\u200f\u061c\u2060\ufeff\u00ad\u180e]/;

/** Removes what could hide, reorder or break outside text; keeps newlines, tabs become spaces. */
export function stripInvisible(text: string): string {
  if (!ANY_TO_STRIP.test(text)) return text;
  const cleaned = text
    .replace(/\r\n?|[\u2028\u2029]/g, "\n")
    .replace(/\t/g, " ")
    .replace(CONTROLS, "")
    .replace(BIDI, "")
    .replace(INVISIBLE, "");
  // A joiner means something only between two non-ASCII characters (emoji sequences, Indic and
  // Persian scripts); next to ASCII it can only disguise a name or split a keyword.
  return cleaned.replace(JOINERS, (joiner, at: number, whole: string) => {
    const before = whole.codePointAt(at - 1) ?? 0;
    const after = whole.codePointAt(at + 1) ?? 0;
    return before > 0x7f && after > 0x7f ? joiner : "";
  });
}

// How our evidence clients name a source in errors: "<source> at <origin>" (http.ts, resolve).
const AT_ADDRESS = /\s+at\s+(?:https?|thrift):\/\/[^\s)\]]+/gi;

/** Removes source addresses from text bound for a channel: "X at http://h:1 failed" → "X failed". */
export function hideAddresses(text: string): string {
  return text.replace(AT_ADDRESS, "");
}

function couldFormat(text: string, at: number): boolean {
  const before = at === 0 ? "" : (text[at - 1] ?? "");
  const after = text[at + 1] ?? "";
  const opens = (before === "" || !WORD.test(before)) && after !== "" && !SPACE.test(after);
  const closes = before !== "" && !SPACE.test(before) && (after === "" || !WORD.test(after));
  return opens || closes;
}

/** Outside text made inert for mrkdwn (see the top of this file). */
export function neutralizeMrkdwn(text: string): string {
  const clean = defuseLinks(hideAddresses(stripInvisible(text)));
  let out = "";
  for (let i = 0; i < clean.length; i += 1) {
    const ch = clean[i] as string;
    const alike = LOOK_ALIKES[ch];
    if (alike !== undefined && (ch === "`" || couldFormat(clean, i))) out += alike;
    else if (ch === "&") out += "&amp;";
    else if (ch === "<") out += "&lt;";
    else if (ch === ">") out += i === 0 || clean[i - 1] === "\n" ? "\u00ad&gt;" : "&gt;";
    else out += ch;
  }
  return out;
}

/** Outside text for inside `inline code` or a ``` block: formatting is off there, entities are not. */
export function neutralizeCode(text: string): string {
  return stripInvisible(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
