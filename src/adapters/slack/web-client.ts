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

/** Every string in a Web API call's arguments, with secrets removed; the token argument is kept. */
function scrubArgs(value: unknown, secrets: readonly string[], key?: string): unknown {
  if (typeof value === "string") return key === "token" ? value : scrubAllForms(value, secrets);
  if (Array.isArray(value)) return value.map((item) => scrubArgs(item, secrets));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubArgs(v, secrets, k)]));
  }
  return value;
}

// The last gate before Slack: whatever text an upstream echoed, in whatever message or view,
// leaves without the secrets. Method shortcuts (chat.postMessage, …) all go through apiCall.
class ScrubbingWebClient extends webApi.WebClient {
  private readonly secrets: readonly string[];

  constructor(token: string | undefined, options: webApi.WebClientOptions, secrets: readonly string[]) {
    super(token, options);
    this.secrets = secrets;
  }

  override apiCall(method: string, options?: Record<string, unknown>): Promise<webApi.WebAPICallResult> {
    const scrubbed =
      options === undefined ? undefined : (scrubArgs(options, this.secrets) as Record<string, unknown>);
    return super.apiCall(method, scrubbed);
  }
}

export function createSlackClient(options: SlackClientOptions): SlackClient {
  const secrets = (options.secrets ?? []).filter((s) => s.length >= 4);
  if (secrets.length === 0) return new webApi.WebClient(options.token, slackClientOptions(options));
  return new ScrubbingWebClient(options.token, slackClientOptions(options), secrets);
}
