// Public shapes of the Slack Web API stand-in: what tests and the demo read back after the bot ran.

import type { StoredFile } from "./files.js";

export type { StoredFile } from "./files.js";

export interface RecordedCall {
  method: string;
  /** Arguments as the stand-in decoded them (JSON-encoded form fields parsed), token removed. */
  args: Record<string, unknown>;
  atMs: number;
  ok: boolean;
  error?: string;
  /** HTTP status the stand-in answered with (200, 429, 5xx). */
  status: number;
  response: unknown;
}

export interface MessageVersion {
  text: string;
  blocks: unknown[];
}

export interface StoredMessage {
  channel: string;
  ts: string;
  /** Set on thread replies: the ts of the root. */
  thread_ts?: string;
  text: string;
  blocks: unknown[];
  /** How many chat.update calls changed this message. */
  edits: number;
  /** Every version, oldest first; the last one is the current text and blocks. */
  versions: MessageVersion[];
  /** Set on ephemeral messages: the only user who sees it. */
  ephemeralUser?: string;
  /** The bot user that posted it. */
  user: string;
  /** Files shared with this message (files.completeUploadExternal). */
  files?: SharedFile[];
}

export interface SharedFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
}

/** A reply sent to a response_url handed out by responseUrl(). */
export interface RecordedResponse {
  id: string;
  atMs: number;
  body: Record<string, unknown>;
}

export interface StandInFault {
  /** Web API method, e.g. "chat.postMessage", or "*" for every method. */
  method: string;
  kind: "ratelimit" | "status";
  /** For "ratelimit": the Retry-After header (default 1). */
  retryAfterSeconds?: number;
  /** For "status": the HTTP status (default 500). */
  status?: number;
  /** How many calls fail before the method works again (default 1). */
  times?: number;
}

export interface SlackStandInOptions {
  /** Port on 127.0.0.1; 0 or absent picks a free one. */
  port?: number;
  /** The bot token the stand-in accepts (default "xoxb-stand-in"). */
  token?: string;
  botUserId?: string;
  botId?: string;
  teamId?: string;
  /** User group id -> member user ids, for usergroups.users.list. */
  usergroups?: Record<string, string[]>;
  /** When given, only these channel ids exist; others answer channel_not_found. */
  channels?: string[];
  /** Seconds part of the first ts handed out (default 1732870000). */
  firstTsSeconds?: number;
  /** Clock for RecordedCall.atMs (default Date.now). */
  now?: () => number;
  /** The app-level token apps.connections.open accepts; absent, any xapp- token is accepted. */
  appToken?: string;
}

/** Slack's side of Socket Mode: the app connects after apps.connections.open. */
export interface SocketModeStandIn {
  connected(): boolean;
  /** Resolves once a client has received `hello`; rejects after timeoutMs (default 5000). */
  waitForConnection(timeoutMs?: number): Promise<void>;
  /**
   * Sends an envelope (type e.g. "slash_commands", "interactive", "events_api") to the connected
   * app and resolves with the payload of its ack; rejects if no ack comes in timeoutMs (default 5000).
   */
  send(
    type: string,
    payload: Record<string, unknown>,
    options?: { timeoutMs?: number },
  ): Promise<Record<string, unknown>>;
  /** Sends Slack's `disconnect` message, asking the app to reconnect. */
  disconnect(reason?: string): void;
}

export interface SlackStandIn {
  /** Base URL for WebClient's slackApiUrl, e.g. http://127.0.0.1:40123/api/ */
  apiUrl: string;
  calls: RecordedCall[];
  /** Messages in ts order, ephemeral ones included, deleted ones left out. */
  messages(channel?: string): StoredMessage[];
  /** Root then replies in ts order; ephemeral messages are left out (nobody else sees them). */
  thread(channel: string, ts: string): StoredMessage[];
  views: { published: Record<string, unknown>; opened: unknown[] };
  /** Replies posted to response URLs. */
  responses: RecordedResponse[];
  /** A response_url the stand-in accepts, for building slash-command and action payloads. */
  responseUrl(id?: string): string;
  inject(fault: StandInFault): void;
  clearFaults(): void;
  /**
   * Resolves with the first truthy value probe returns, re-checked after every recorded call;
   * rejects after timeoutMs (default 5000) saying what it waited for.
   */
  waitFor<T>(probe: () => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  socketMode: SocketModeStandIn;
  /** Files uploaded through files.getUploadURLExternal, with their bytes once they arrived. */
  files(): StoredFile[];
  close(): Promise<void>;
}
