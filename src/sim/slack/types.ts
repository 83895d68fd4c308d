// Public shapes of the Slack Web API stand-in: what tests and the demo read back after the bot ran.

export interface RecordedCall {
  method: string;
  /** Arguments as the stand-in decoded them (JSON-encoded form fields parsed), token removed. */
  args: Record<string, unknown>;
  atMs: number;
  ok: boolean;
  error?: string;
  /** HTTP status the stand-in answered with (200, 429, 5xx); 0 when the connection was reset instead. */
  status: number;
  response: unknown;
  /** The injected fault that shaped this answer, if any. */
  fault?: StandInFault["kind"];
  /**
   * Whether the method was carried out (a message stored, a view opened). False for refused calls
   * and faults that answer before doing anything; true for "late", "reset" and delivered 5xx.
   */
  carriedOut: boolean;
}

export interface MessageVersion {
  text: string;
  blocks: unknown[];
}

/** Slack message metadata as chat.postMessage and chat.update accept it. */
export interface MessageMetadata {
  event_type: string;
  event_payload: Record<string, unknown>;
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
  /** Metadata sent with the post, or by the last update that carried some. */
  metadata?: MessageMetadata;
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

/**
 * A failure the stand-in plays for matching calls. "ratelimit" and "status" answer before doing
 * anything (the call had no effect) unless `delivered` is set. The unknown-outcome kinds carry the
 * call out first, so the caller cannot tell from the answer whether it happened:
 * - "late": stores the message, then answers only after `delayMs` (set it above the client's timeout);
 * - "reset": stores the message, then closes the connection without an answer;
 * - "status" with `delivered: true`: stores the message, then answers the 5xx status.
 */
export interface StandInFault {
  /** Web API method, e.g. "chat.postMessage", or "*" for every method. */
  method: string;
  /** "refuse": Slack's own refusal, HTTP 200 with {ok:false,error} (a revoked token, not_in_channel). */
  kind: "ratelimit" | "status" | "late" | "reset" | "refuse";
  /** For "refuse": Slack's error code, e.g. "token_revoked" or "not_in_channel". */
  error?: string;
  /** For "ratelimit": the Retry-After header (default 1). */
  retryAfterSeconds?: number;
  /** For "status": the HTTP status (default 500). */
  status?: number;
  /** For "status": carry the call out before answering the error status (default false). */
  delivered?: boolean;
  /** For "late": milliseconds between carrying the call out and answering (default 15000). */
  delayMs?: number;
  /** For "late": answer once this settles instead of after delayMs, so a test decides when. */
  releasedBy?: Promise<unknown>;
  /** How many calls fail before the method works again (default 1); ignored when forMs is set. */
  times?: number;
  /** Fail every matching call for this many milliseconds from injection (an outage window). */
  forMs?: number;
  /** Only calls whose decoded arguments pass this test are affected, e.g. thread replies only. */
  match?: (args: Record<string, unknown>) => boolean;
}

export interface SlackStandInOptions {
  /** Port on `host`; 0 or absent picks a free one. */
  port?: number;
  /** Interface to listen on (default 127.0.0.1; 0.0.0.0 in a container). */
  host?: string;
  /** Host name the bot reaches the stand-in by, used in the URLs it hands out (default 127.0.0.1). */
  advertisedHost?: string;
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
  /** False: canvases.create answers `free_team_not_allowed`, as on a free workspace (default true). */
  canvases?: boolean;
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
   * Resolves once every answer held back by a "late" fault has been sent (or dropped because the
   * caller hung up), so a test can observe what the client does after the late answer arrives.
   */
  settled(): Promise<void>;
  /**
   * Resolves with the first truthy value probe returns, re-checked after every recorded call;
   * rejects after timeoutMs (default 5000) saying what it waited for.
   */
  waitFor<T>(probe: () => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  socketMode: SocketModeStandIn;
  /** Files uploaded through files.getUploadURLExternal, with their bytes once they arrived. */
  files(): StoredFile[];
  /** Canvases made with canvases.create, oldest first. */
  canvases(): StoredCanvas[];
  /** Whether canvases.create is allowed from now on (a free workspace refuses it). */
  allowCanvases(allowed: boolean): void;
  close(): Promise<void>;
}

/** A file uploaded through files.getUploadURLExternal, as the stand-in keeps it. */
export interface StoredFile {
  id: string;
  name: string;
  title?: string;
  altText?: string;
  /** Declared in files.getUploadURLExternal. */
  length: number;
  /** The upload request's content-type header, as sent. */
  contentType?: string;
  /** Detected from the bytes, as Slack does (image/png, application/octet-stream…). */
  mimetype?: string;
  filetype?: string;
  bytes?: Uint8Array;
  /** Set once completed: where it was shared. */
  shares: Array<{ channel: string; ts: string; thread_ts?: string }>;
  completed: boolean;
}

/** A canvas the bot created (canvases.create), its markdown as sent. */
export interface StoredCanvas {
  id: string;
  title?: string;
  markdown: string;
  channel?: string;
}
