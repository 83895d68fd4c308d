// The WebClient the bot posts with. Rate limits (429) are waited out by the client itself using
// Retry-After; other failures get a few quick retries here, then the job's own backoff.

import { type Logger, webApi } from "@slack/bolt";
import { scrubAllForms } from "../../util/secret-forms.js";

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

/** Every string in a Web API call's arguments, without secrets or internal addresses; the token argument is kept. */
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
      options === undefined ? undefined : (scrubArgs(options, this.scrub) as Record<string, unknown>);
    return super.apiCall(method, scrubbed);
  }
}

export function createSlackClient(options: SlackClientOptions): SlackClient {
  const secrets = (options.secrets ?? []).filter((s) => s.length >= 4);
  const addresses = addressPatterns(options.addresses ?? []);
  if (secrets.length === 0 && addresses.length === 0) {
    return new webApi.WebClient(options.token, slackClientOptions(options));
  }
  return new ScrubbingWebClient(options.token, slackClientOptions(options), { secrets, addresses });
}
