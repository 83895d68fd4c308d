// The WebClient the bot posts with. Rate limits (429) are waited out by the client itself using
// Retry-After; other failures get a few quick retries here, then the job's own backoff.

import { type Logger, webApi } from "@slack/bolt";

export type SlackClient = InstanceType<typeof webApi.WebClient>;

export interface SlackClientOptions {
  token?: string;
  apiUrl?: string;
  /** Retries inside the client before the job fails and BullMQ retries it later. */
  retries?: number;
  timeoutMs?: number;
  /** The client logs rate-limit waits; routed to our logger so nothing bypasses redaction. */
  logger?: Logger;
}

export function slackClientOptions(options: SlackClientOptions) {
  return {
    slackApiUrl: options.apiUrl,
    logger: options.logger,
    // Must stay false: true would turn a 429 into an error instead of a wait.
    rejectRateLimitedCalls: false,
    retryConfig: { retries: options.retries ?? 3, factor: 2, minTimeout: 200, maxTimeout: 2000 },
    timeout: options.timeoutMs ?? 10_000,
  };
}

export function createSlackClient(options: SlackClientOptions): SlackClient {
  return new webApi.WebClient(options.token, slackClientOptions(options));
}
