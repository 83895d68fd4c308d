// Report text comes partly from upstream systems (exception messages, connector traces). Before it
// reaches a terminal or a markdown page, escape sequences and control characters are removed so a
// hostile or noisy upstream cannot repaint the screen or break the layout.

// ESC-based sequences (CSI, OSC and two-character escapes) first, then any remaining C0/C1 controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const ESCAPE_SEQUENCES = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Bidi overrides and isolates reorder what a terminal shows (a name can read as another one), and
 * zero-width characters hide: shown as visible escapes instead (\u202e), so they can be seen.
 */
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

function escapeInvisible(value: string): string {
  return value.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Removes escape sequences and control characters, escapes bidi and zero-width ones; keeps newlines, turns tabs into spaces. */
export function cleanText(value: string): string {
  return escapeInvisible(
    value.replace(ESCAPE_SEQUENCES, "").replace(/\t/g, "  ").replace(CONTROL_CHARACTERS, ""),
  );
}

/** For one message line on a terminal (an error): controls and invisible characters escaped, none dropped. */
export function escapeForTerminal(value: string): string {
  return escapeInvisible(
    value.replace(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
      /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g,
      (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
    ),
  );
}

/** One clean line: newlines folded to spaces, runs of spaces collapsed, cut to `max` characters. */
export function oneLine(value: string, max = 240): string {
  const folded = cleanText(value)
    .replace(/\s*\n\s*/g, " ")
    .replace(/ {2,}/g, " ")
    .trim();
  return folded.length > max ? `${folded.slice(0, max - 1).trimEnd()}…` : folded;
}

// A scheme link (https://…, ftp://…), a bare www. address or an e-mail address: what Markdown
// (GFM autolinks), a canvas and Slack turn into a live link on their own.
const LINKISH =
  /\b([a-z][a-z0-9+.-]*):\/\/([^\s/?#]*)|\bwww\.([^\s/?#]*)|\b([\w.+-]+)@([a-z0-9-]+(?:\.[a-z0-9-]+)+)/gi;

/**
 * Outside text never becomes a link: a link or address in a name or message is shown defanged, as
 * security write-ups do ("https[:]//evil[.]example/reset", "www[.]evil[.]example"), so it reads as
 * typed and nothing renders it clickable. The one place for it: Markdown (mdText) and Slack
 * (neutralizeMrkdwn) both call it.
 */
export function defuseLinks(text: string): string {
  const dots = (host: string) => host.replace(/\./g, "[.]");
  return text.replace(
    LINKISH,
    (_all, scheme?: string, host?: string, www?: string, user?: string, domain?: string) => {
      if (scheme !== undefined) return `${scheme}[:]//${dots(host ?? "")}`;
      if (www !== undefined) return `www[.]${dots(www)}`;
      return `${user}[@]${dots(domain ?? "")}`;
    },
  );
}
