// A secret can reach a log line or a message in other clothes than its own: URL-encoded (an OAuth
// endpoint echoing the posted form), JSON-escaped (a body quoted inside a log line), or base64
// (a Basic authorization header "client:secret", a token inside an encoded blob), or base64 of its
// URL-encoded form (an OAuth2 client-credentials Basic header). scrubAllForms
// finds each of those forms and replaces it whole.

/** The same marker as config's REDACTED (kept here so this module needs nothing from config). */
const REDACTED = "[redacted]";

/** Base64 runs shorter than this found inside encoded text are not trusted as a match. */
const MIN_EMBEDDED_BASE64 = 8;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Percent-escapes match in either hex case (%2F and %2f). */
function percentPattern(encoded: string): string {
  return escapeRegExp(encoded).replace(/%([0-9A-F])([0-9A-F])/g, (_m, a: string, b: string) => {
    const either = (c: string) => (/[A-F]/.test(c) ? `[${c}${c.toLowerCase()}]` : c);
    return `%${either(a)}${either(b)}`;
  });
}

function jsonForms(secret: string): string[] {
  const once = JSON.stringify(secret).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  const asciiOnly = once.replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return [once, twice, once.replace(/\//g, "\\/"), asciiOnly];
}

function urlForms(secret: string): string[] {
  const component = encodeURIComponent(secret);
  const form = new URLSearchParams({ s: secret }).toString().slice(2);
  return [component, form, component.replace(/%20/g, "+"), encodeURIComponent(component)];
}

function toBase64Url(standard: string): string {
  return standard.replace(/\+/g, "-").replace(/\//g, "_");
}

/**
 * The part of base64(prefix + secret + suffix) that depends only on the secret, for each of the
 * three alignments an unknown prefix can give; in standard and URL-safe alphabets.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const cores: string[] = [];
  for (let shift = 0; shift < 3; shift += 1) {
    const padded = Buffer.concat([Buffer.alloc(shift), bytes]);
    const encoded = padded.toString("base64").replace(/=+$/, "");
    // Characters touched by the unknown prefix bytes, and by the unknown suffix at the end.
    const start = shift === 0 ? 0 : Math.ceil((shift * 4) / 3);
    const fullGroups = Math.floor(padded.length / 3) * 4;
    const core = encoded.slice(start, fullGroups);
    if (core.length >= MIN_EMBEDDED_BASE64) cores.push(core, toBase64Url(core));
  }
  return cores;
}

function exactBase64(secret: string): string[] {
  const standard = Buffer.from(secret, "utf8").toString("base64");
  const bare = standard.replace(/=+$/, "");
  return [standard, bare, toBase64Url(standard), toBase64Url(bare)];
}

interface Matcher {
  pattern: RegExp;
  /** Base64 matches widen to the whole base64 run around them. */
  widen: boolean;
}

const cache = new Map<string, Matcher[]>();

function matchersFor(secret: string): Matcher[] {
  const cached = cache.get(secret);
  if (cached) return cached;
  const literal = new Set<string>([secret, ...jsonForms(secret)]);
  const encoded = new Set<string>(urlForms(secret).filter((f) => f !== secret));
  // An OAuth2 client-credentials Basic header carries base64(urlencode(id) ":" urlencode(secret)),
  // so the encoded forms are looked for inside base64 too.
  const base64 = new Set<string>(
    [secret, ...encoded].flatMap((form) => [...exactBase64(form), ...base64Cores(form)]),
  );
  const alternatives = [
    ...[...literal].sort((a, b) => b.length - a.length).map(escapeRegExp),
    ...[...encoded].sort((a, b) => b.length - a.length).map(percentPattern),
  ];
  const matchers: Matcher[] = [{ pattern: new RegExp(alternatives.join("|"), "g"), widen: false }];
  const b64 = [...base64].filter((f) => f.length >= 4).sort((a, b) => b.length - a.length);
  if (b64.length > 0)
    matchers.push({ pattern: new RegExp(b64.map(escapeRegExp).join("|"), "g"), widen: true });
  if (cache.size > 256) cache.clear();
  cache.set(secret, matchers);
  return matchers;
}

const BASE64_CHAR = /[A-Za-z0-9+/_-]/;

/** Replaces each match, widened to the whole base64 run (and its padding) around it. */
function replaceWidened(text: string, pattern: RegExp): string {
  let out = "";
  let last = 0;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    let start = match.index;
    let end = start + match[0].length;
    while (start > last && BASE64_CHAR.test(text[start - 1] ?? "")) start -= 1;
    while (end < text.length && BASE64_CHAR.test(text[end] ?? "")) end += 1;
    for (let pad = 0; pad < 2 && text[end] === "="; pad += 1) end += 1;
    out += `${text.slice(last, start)}${REDACTED}`;
    last = end;
    pattern.lastIndex = end;
  }
  return out + text.slice(last);
}

/** The pattern of every form scrubAllForms replaces, one per entry (for a one-pass "anything here?"). */
export function secretFormPatterns(secrets: readonly string[]): string[] {
  return secrets
    .filter((secret) => secret !== "")
    .flatMap((secret) => matchersFor(secret).map((m) => m.pattern.source));
}

/** Replaces every raw, URL-encoded, JSON-escaped and base64 form of each secret. */
export function scrubAllForms(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longer secrets first, so a secret that contains another is replaced whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret === "") continue;
    for (const matcher of matchersFor(secret)) {
      out = matcher.widen ? replaceWidened(out, matcher.pattern) : out.replace(matcher.pattern, REDACTED);
    }
  }
  return out;
}

/** The password a URL carries (user:password@), decoded. */
export function urlPassword(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  try {
    return decodeURIComponent(new URL(raw).password) || undefined;
  } catch {
    return undefined;
  }
}

/** The secret half of an OAuth2 client credential ("client_id:client_secret"). */
export function credentialSecret(credential: string): string {
  return credential.split(":").slice(1).join(":");
}
