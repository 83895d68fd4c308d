// The WebClient the bot posts with. Rate limits (429) are waited out by the client itself using
// Retry-After; other failures get a few quick retries here, then the job's own backoff.

import { type Logger, webApi } from "@slack/bolt";
import { scrubAllForms, secretFormPatterns } from "../../util/secret-forms.js";
import { defuseLinks } from "../render/text-safety.js";

export type SlackClient = InstanceType<typeof webApi.WebClient>;

export interface SlackClientOptions {
  token?: string;
  apiUrl?: string;
  /** Retries inside the client before the job fails and BullMQ retries it later. */
  retries?: number;
  timeoutMs?: number;
  /** The client logs rate-limit waits; routed to our logger so nothing bypasses redaction. */
  logger?: Logger;
  /**
   * One attempt per call: no retries inside the client and a 429 comes back as an error carrying
   * Retry-After, for a caller that schedules its own retries (the outbox poster).
   */
  oneAttempt?: boolean;
  /** Secret values that must never reach Slack, in any encoding (every argument is scrubbed). */
  secrets?: readonly string[];
  /** Internal addresses (evidence sources) named instead of shown: "http://catalog:8181" → "the catalog". */
  addresses?: ReadonlyArray<{ url: string; name: string }>;
}

interface Scrub {
  secrets: readonly string[];
  addresses: ReadonlyArray<{ pattern: RegExp; name: string }>;
  /** Matches wherever any secret form or address does: text it does not match is left as it is. */
  any: RegExp | undefined;
}

/** What must never reach Slack: secret values (any encoding) and internal addresses. */
export type ScrubSettings = Pick<SlackClientOptions, "secrets" | "addresses">;

function scrubOf(settings: ScrubSettings): Scrub {
  const secrets = (settings.secrets ?? []).filter((s) => s.length >= 4);
  const addresses = addressPatterns(settings.addresses ?? []);
  const sources = [...secretFormPatterns(secrets), ...addresses.map((a) => a.pattern.source)];
  return {
    secrets,
    addresses,
    any: sources.length > 0 ? new RegExp(sources.map((source) => `(?:${source})`).join("|")) : undefined,
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The origin of each address, and anything after it up to a space or closing mark. */
function addressPatterns(addresses: ReadonlyArray<{ url: string; name: string }>): Scrub["addresses"] {
  const patterns: Array<{ pattern: RegExp; name: string }> = [];
  for (const { url, name } of addresses) {
    try {
      const origin = new URL(url).origin;
      patterns.push({ pattern: new RegExp(`${escapeRegExp(origin)}(?![0-9])[^\\s)\\]>"'|]*`, "g"), name });
      // Outside text quoting it is defanged before it gets here ("http[:]//catalog[.]internal").
      const defused = escapeRegExp(defuseLinks(origin));
      patterns.push({ pattern: new RegExp(`${defused}(?![0-9])(?:\\[\\.\\]|[^\\s)\\]>"'|])*`, "g"), name });
    } catch {
      // Not a URL: nothing to hide.
    }
  }
  return patterns;
}

export function slackClientOptions(options: SlackClientOptions) {
  return {
    slackApiUrl: options.apiUrl,
    logger: options.logger,
    // False unless the caller retries itself: true turns a 429 into an error instead of a wait.
    rejectRateLimitedCalls: options.oneAttempt === true,
    retryConfig: {
      retries: options.oneAttempt ? 0 : (options.retries ?? 3),
      factor: 2,
      minTimeout: 200,
      maxTimeout: 2000,
    },
    timeout: options.timeoutMs ?? 10_000,
  };
}

/**
 * Every string in a Web API call's arguments, without secrets or internal addresses; the token
 * argument is kept. A value whose JSON nothing matches is returned as it is, without a walk: the
 * patterns include each secret's JSON-escaped forms, so the JSON finds whatever a walk would, and
 * the ack of every slash command is checked in one regular-expression pass instead of dozens.
 */
function scrubValue(value: unknown, scrub: Scrub): unknown {
  if (scrub.any === undefined) return value;
  let text: string | undefined;
  try {
    text = typeof value === "string" ? value : JSON.stringify(value);
  } catch {
    // Not JSON (a BigInt, a cycle): walked like anything else.
    return scrubArgs(value, scrub);
  }
  if (text === undefined || !scrub.any.test(text)) return value;
  return scrubArgs(value, scrub);
}

function scrubArgs(value: unknown, scrub: Scrub, key?: string): unknown {
  if (typeof value === "string") {
    if (key === "token") return value;
    let out = scrub.secrets.length > 0 ? scrubAllForms(value, scrub.secrets) : value;
    for (const { pattern, name } of scrub.addresses) out = out.replace(pattern, name);
    return out;
  }
  if (Array.isArray(value)) return value.map((item) => scrubArgs(item, scrub));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubArgs(v, scrub, k)]));
  }
  return value;
}

// The last gate before Slack: whatever text an upstream echoed, in whatever message or view,
// leaves without the secrets. Method shortcuts (chat.postMessage, …) all go through apiCall.
class ScrubbingWebClient extends webApi.WebClient {
  private readonly scrub: Scrub;

  constructor(token: string | undefined, options: webApi.WebClientOptions, scrub: Scrub) {
    super(token, options);
    this.scrub = scrub;
  }

  override apiCall(method: string, options?: Record<string, unknown>): Promise<webApi.WebAPICallResult> {
    const scrubbed =
      options === undefined ? undefined : (scrubValue(options, this.scrub) as Record<string, unknown>);
    return super.apiCall(method, scrubbed);
  }
}

export function createSlackClient(options: SlackClientOptions): SlackClient {
  const scrub = scrubOf(options);
  if (scrub.secrets.length === 0 && scrub.addresses.length === 0) {
    return new webApi.WebClient(options.token, slackClientOptions(options));
  }
  return new ScrubbingWebClient(options.token, slackClientOptions(options), scrub);
}

/** Every string in a value (an ack's body, a response_url reply), scrubbed; the token kept. */
export function createScrubber(settings: ScrubSettings): <T>(value: T) => T {
  const scrub = scrubOf(settings);
  return <T>(value: T) => scrubValue(value, scrub) as T;
}

/**
 * A fetch for the receiver's own Slack client and its response_url replies (Bolt sends both with
 * the app's `clientOptions.fetch`), so they leave scrubbed like everything the workers send. The
 * bodies are the Web API's form (each field, blocks included, scrubbed as text; the token kept) or
 * a response_url's JSON.
 */
export function scrubbingFetch(settings: ScrubSettings): webApi.FetchFunction {
  const scrub = scrubOf(settings);
  return (url, init) => {
    if (typeof init?.body !== "string") return fetch(url, init);
    const type = new Headers(init.headers).get("content-type") ?? "";
    let body = init.body;
    if (type.includes("application/json")) {
      try {
        body = JSON.stringify(scrubValue(JSON.parse(body), scrub));
      } catch {
        body = scrubValue(body, scrub) as string;
      }
    } else if (type.includes("application/x-www-form-urlencoded")) {
      const fields = new URLSearchParams();
      for (const [key, value] of new URLSearchParams(body))
        fields.append(key, scrubArgs(value, scrub, key) as string);
      body = fields.toString();
    }
    return fetch(url, { ...init, body });
  };
}
