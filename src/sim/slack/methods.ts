// The Web API methods the bot uses, answered the way Slack answers them: HTTP 200 with
// {ok:true,...} or {ok:false,error,response_metadata?}. Argument checks follow the request types in
// @slack/web-api (ChatPostMessageArguments, ViewsOpenArguments, …).

import { ApiError } from "./api-error.js";
import { checkBlocks, checkView } from "./block-rules.js";
import { compareTs, type MessageStore } from "./message-store.js";
import type { MessageMetadata, StoredMessage } from "./types.js";

/** The app id the stand-in's bot belongs to, on messages and views. */
const APP_ID = "A0STANDIN";

/** Slack caps the text field at 40,000 characters and answers msg_too_long above it. */
const MAX_MESSAGE_TEXT = 40_000;

export interface MethodContext {
  store: MessageStore;
  botUserId: string;
  botId: string;
  teamId: string;
  baseUrl: string;
  usergroups: Record<string, string[]>;
  channels: Set<string> | undefined;
  views: { published: Record<string, unknown>; opened: unknown[] };
  nextViewId: () => string;
}

export type MethodHandler = (args: Record<string, unknown>, ctx: MethodContext) => Record<string, unknown>;

function requireString(args: Record<string, unknown>, field: string): string {
  const value = args[field];
  if (typeof value !== "string" || value.trim() === "") {
    throw new ApiError("invalid_arguments", [`[ERROR] missing required field: ${field}`]);
  }
  return value;
}

function requireChannel(args: Record<string, unknown>, ctx: MethodContext, field = "channel"): string {
  const channel = requireString(args, field);
  if (ctx.channels !== undefined && !ctx.channels.has(channel)) throw new ApiError("channel_not_found");
  return channel;
}

/** text, blocks, attachments or markdown_text: at least one (MessageContents in @slack/web-api). */
function messageContents(
  args: Record<string, unknown>,
  requireOne: boolean,
): { text?: string; blocks?: unknown[] } {
  const { text, blocks, attachments, markdown_text: markdown } = args;
  const hasText = typeof text === "string" && text !== "";
  const hasBlocks = Array.isArray(blocks) ? blocks.length > 0 : blocks !== undefined;
  if (requireOne && !hasText && !hasBlocks && attachments === undefined && !markdown) {
    throw new ApiError("no_text");
  }
  if (text !== undefined && typeof text !== "string") {
    throw new ApiError("invalid_arguments", ["[ERROR] must be a string [json-pointer:/text]"]);
  }
  if (typeof text === "string" && text.length > MAX_MESSAGE_TEXT) throw new ApiError("msg_too_long");
  if (blocks === undefined) return { text };
  if (!Array.isArray(blocks)) throw new ApiError("invalid_blocks_format");
  const errors = checkBlocks(blocks, "message");
  if (errors.length > 0) throw new ApiError("invalid_blocks", errors);
  return { text, blocks };
}

function threadRoot(args: Record<string, unknown>, channel: string, ctx: MethodContext): string | undefined {
  const threadTs = args.thread_ts;
  if (threadTs === undefined || threadTs === "") return undefined;
  if (typeof threadTs !== "string" || !/^\d+\.\d{6}$/.test(threadTs)) throw new ApiError("invalid_thread_ts");
  const parent = ctx.store.get(channel, threadTs);
  if (parent === undefined || parent.ephemeralUser !== undefined) throw new ApiError("thread_not_found");
  // Replying to a reply lands in the same thread, as in Slack.
  return parent.thread_ts ?? parent.ts;
}

/**
 * Message metadata (chat.postMessage, chat.update): an object with a string event_type and an
 * object event_payload. A field that is not a JSON object answers invalid_metadata_format; an object
 * missing either part answers invalid_metadata_schema.
 */
function messageMetadata(args: Record<string, unknown>): MessageMetadata | undefined {
  const metadata = args.metadata;
  if (metadata === undefined || metadata === "") return undefined;
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    throw new ApiError("invalid_metadata_format");
  }
  const { event_type: eventType, event_payload: payload } = metadata as Record<string, unknown>;
  if (typeof eventType !== "string" || eventType === "") {
    throw new ApiError("invalid_metadata_schema", ["[ERROR] missing required field: event_type"]);
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw new ApiError("invalid_metadata_schema", ["[ERROR] missing required field: event_payload"]);
  }
  return { event_type: eventType, event_payload: structuredClone(payload as Record<string, unknown>) };
}

/** Stores a posted message (ephemeral when `ephemeralUser` is given) in the channel or thread. */
function addPosted(
  args: Record<string, unknown>,
  channel: string,
  ctx: MethodContext,
  ephemeralUser?: string,
): StoredMessage {
  const { text, blocks } = messageContents(args, true);
  const thread_ts = threadRoot(args, channel, ctx);
  // Ephemeral messages carry no metadata in Slack; the argument is simply not part of that method.
  const metadata = ephemeralUser === undefined ? messageMetadata(args) : undefined;
  return ctx.store.add({
    channel,
    ts: ctx.store.nextTs(),
    ...(thread_ts === undefined ? {} : { thread_ts }),
    text: text ?? "",
    blocks: blocks ?? [],
    user: ctx.botUserId,
    ...(ephemeralUser === undefined ? {} : { ephemeralUser }),
    ...(metadata === undefined ? {} : { metadata }),
  });
}

function messageJson(
  message: StoredMessage,
  ctx: MethodContext,
  withMetadata = true,
): Record<string, unknown> {
  return {
    type: "message",
    user: message.user,
    bot_id: ctx.botId,
    app_id: APP_ID,
    text: message.text,
    blocks: message.blocks,
    ts: message.ts,
    ...(message.thread_ts === undefined ? {} : { thread_ts: message.thread_ts }),
    team: ctx.teamId,
    // A shared file's message lists its files, as Slack's history and replies do.
    ...(message.files === undefined || message.files.length === 0
      ? {}
      : { upload: true, files: message.files.map((f) => ({ ...f })) }),
    ...(withMetadata && message.metadata !== undefined
      ? { metadata: structuredClone(message.metadata) }
      : {}),
  };
}

// --- Reading history: conversations.history and conversations.replies ---------------------------

interface Page {
  messages: StoredMessage[];
  nextCursor?: string;
}

/** Slack-style cursor: base64 of "next_ts:<ts>", the first message of the next page. */
function encodeCursor(ts: string): string {
  return Buffer.from(`next_ts:${ts}`, "utf8").toString("base64");
}

function decodeCursor(cursor: unknown): string | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  if (typeof cursor !== "string") throw new ApiError("invalid_cursor");
  const decoded = /^next_ts:(\d+\.\d{6})$/.exec(Buffer.from(cursor, "base64").toString("utf8"));
  if (decoded?.[1] === undefined) throw new ApiError("invalid_cursor");
  return decoded[1];
}

/** true, "true" and "1" are true, as Slack reads boolean form fields. */
function flag(args: Record<string, unknown>, field: string): boolean {
  const value = args[field];
  return value === true || value === "true" || value === "1" || value === 1;
}

function timestampArg(args: Record<string, unknown>, field: "oldest" | "latest"): string | undefined {
  const value = args[field];
  if (value === undefined || value === "") return undefined;
  const text = typeof value === "number" ? String(value) : value;
  if (typeof text !== "string" || !/^\d+(\.\d+)?$/.test(text)) throw new ApiError(`invalid_ts_${field}`);
  return text;
}

/** Slack's limit: a default, capped at a maximum; values below 1 fall back to the default. */
function limitArg(args: Record<string, unknown>, fallback: number, max: number): number {
  const value = Number(args.limit);
  if (args.limit === undefined || args.limit === "" || !Number.isFinite(value) || value < 1) return fallback;
  return Math.min(Math.floor(value), max);
}

/** oldest/latest window; bounds count only when `inclusive` is set and that bound was given. */
function inWindow(args: Record<string, unknown>): (message: StoredMessage) => boolean {
  const oldest = timestampArg(args, "oldest");
  const latest = timestampArg(args, "latest");
  const inclusive = flag(args, "inclusive");
  return (message) => {
    if (oldest !== undefined) {
      const c = compareTs(message.ts, oldest);
      if (c < 0 || (c === 0 && !inclusive)) return false;
    }
    if (latest !== undefined) {
      const c = compareTs(message.ts, latest);
      if (c > 0 || (c === 0 && !inclusive)) return false;
    }
    return true;
  };
}

/** One page of `ordered` starting at the cursor's message; the cursor names the next page's first. */
function page(
  ordered: StoredMessage[],
  args: Record<string, unknown>,
  limit: number,
  newestFirst: boolean,
): Page {
  const cursorTs = decodeCursor(args.cursor);
  let start = 0;
  if (cursorTs !== undefined) {
    start = ordered.findIndex((m) => {
      const c = compareTs(m.ts, cursorTs);
      return newestFirst ? c <= 0 : c >= 0;
    });
    if (start < 0) start = ordered.length;
  }
  const messages = ordered.slice(start, start + limit);
  const next = ordered[start + limit];
  return next === undefined ? { messages } : { messages, nextCursor: encodeCursor(next.ts) };
}

function visibleReplies(ctx: MethodContext, channel: string, rootTs: string): StoredMessage[] {
  return ctx.store.thread(channel, rootTs).slice(1);
}

/** A root as history and replies show it: thread fields once it has replies. */
function rootJson(
  message: StoredMessage,
  ctx: MethodContext,
  withMetadata: boolean,
): Record<string, unknown> {
  const json = messageJson(message, ctx, withMetadata);
  const replies = visibleReplies(ctx, message.channel, message.ts);
  const last = replies.at(-1);
  if (last === undefined) return json;
  const users = [...new Set(replies.map((r) => r.user))];
  return {
    ...json,
    thread_ts: message.ts,
    reply_count: replies.length,
    reply_users_count: users.length,
    latest_reply: last.ts,
    reply_users: users,
    is_locked: false,
    subscribed: false,
  };
}

function replyJson(
  message: StoredMessage,
  root: StoredMessage,
  ctx: MethodContext,
  withMetadata: boolean,
): Record<string, unknown> {
  return { ...messageJson(message, ctx, withMetadata), parent_user_id: root.user };
}

function pageBody(messages: unknown[], nextCursor: string | undefined): Record<string, unknown> {
  return {
    messages,
    has_more: nextCursor !== undefined,
    ...(nextCursor === undefined ? {} : { response_metadata: { next_cursor: nextCursor } }),
  };
}

function permalink(ctx: MethodContext, channel: string, ts: string, threadTs?: string): string {
  const base = `${ctx.baseUrl}archives/${encodeURIComponent(channel)}/p${ts.replace(".", "")}`;
  return threadTs === undefined ? base : `${base}?thread_ts=${threadTs}&cid=${encodeURIComponent(channel)}`;
}

function viewJson(view: Record<string, unknown>, id: string, ctx: MethodContext): Record<string, unknown> {
  return {
    id,
    team_id: ctx.teamId,
    app_id: APP_ID,
    bot_id: ctx.botId,
    state: { values: {} },
    hash: `${id}.hash`,
    callback_id: "",
    private_metadata: "",
    external_id: "",
    ...view,
  };
}

function checkedView(args: Record<string, unknown>, expected: "modal" | "home"): Record<string, unknown> {
  const view = args.view;
  if (view === undefined) throw new ApiError("invalid_arguments", ["[ERROR] missing required field: view"]);
  const errors = checkView(view, expected);
  if (errors.length > 0) throw new ApiError("invalid_arguments", errors);
  return view as Record<string, unknown>;
}

function findOpenedView(ctx: MethodContext, args: Record<string, unknown>): number {
  const viewId = args.view_id;
  const externalId = args.external_id;
  if (viewId === undefined && externalId === undefined) {
    throw new ApiError("invalid_arguments", ["[ERROR] missing required field: view_id or external_id"]);
  }
  const index = ctx.views.opened.findIndex((v) => {
    const view = v as Record<string, unknown>;
    return (
      (viewId !== undefined && view.id === viewId) ||
      (externalId !== undefined && view.external_id === externalId)
    );
  });
  if (index < 0) throw new ApiError("not_found");
  return index;
}

function openView(args: Record<string, unknown>, ctx: MethodContext): Record<string, unknown> {
  if (args.trigger_id === undefined && args.interactivity_pointer === undefined) {
    throw new ApiError("invalid_arguments", ["[ERROR] missing required field: trigger_id"]);
  }
  const view = viewJson(checkedView(args, "modal"), ctx.nextViewId(), ctx);
  ctx.views.opened.push(view);
  return { ok: true, view };
}

export const METHODS: Record<string, MethodHandler> = {
  "auth.test": (_args, ctx) => ({
    ok: true,
    url: ctx.baseUrl,
    team: "Stand-in workspace",
    user: "iceberg-bot",
    team_id: ctx.teamId,
    user_id: ctx.botUserId,
    bot_id: ctx.botId,
    is_enterprise_install: false,
  }),

  "chat.postMessage": (args, ctx) => {
    const channel = requireChannel(args, ctx);
    const message = addPosted(args, channel, ctx);
    return { ok: true, channel, ts: message.ts, message: messageJson(message, ctx) };
  },

  "chat.postEphemeral": (args, ctx) => {
    const channel = requireChannel(args, ctx);
    const user = requireString(args, "user");
    const message = addPosted(args, channel, ctx, user);
    return { ok: true, message_ts: message.ts };
  },

  "chat.update": (args, ctx) => {
    const channel = requireChannel(args, ctx);
    const ts = requireString(args, "ts");
    const { text, blocks } = messageContents(args, true);
    const metadata = messageMetadata(args);
    const existing = ctx.store.get(channel, ts);
    if (existing === undefined) throw new ApiError("message_not_found");
    if (existing.ephemeralUser !== undefined) throw new ApiError("cant_update_message");
    // Slack keeps the previous blocks when an update leaves them out; [] removes them. Metadata
    // left out of an update is kept too.
    const updated = ctx.store.update(channel, ts, { text: text ?? "", blocks: blocks ?? existing.blocks })!;
    if (metadata !== undefined) updated.metadata = metadata;
    // Slack's answer gives the ts beside the message, not in it (its published sample too).
    const { ts: _ts, ...message } = messageJson(updated, ctx);
    return { ok: true, channel, ts, text: updated.text, message };
  },

  "chat.delete": (args, ctx) => {
    const channel = requireChannel(args, ctx);
    const ts = requireString(args, "ts");
    if (!ctx.store.delete(channel, ts)) throw new ApiError("message_not_found");
    return { ok: true, channel, ts };
  },

  "chat.getPermalink": (args, ctx) => {
    const channel = requireChannel(args, ctx);
    const ts = requireString(args, "message_ts");
    const message = ctx.store.get(channel, ts);
    if (message === undefined || message.ephemeralUser !== undefined) throw new ApiError("message_not_found");
    return { ok: true, channel, permalink: permalink(ctx, channel, ts, message.thread_ts) };
  },

  "conversations.info": (args, ctx) => {
    const channel = requireChannel(args, ctx);
    return {
      ok: true,
      channel: {
        id: channel,
        name: channel.toLowerCase(),
        is_channel: true,
        is_member: true,
        is_archived: false,
      },
    };
  },

  // Top-level messages (thread roots included, replies not), newest first, as Slack returns them.
  // Metadata is only returned with include_all_metadata, which is how Slack behaves for readers.
  "conversations.history": (args, ctx) => {
    const channel = requireChannel(args, ctx);
    const within = inWindow(args);
    const withMetadata = flag(args, "include_all_metadata");
    const roots = ctx.store
      .list(channel)
      .filter((m) => m.ephemeralUser === undefined && m.thread_ts === undefined && within(m))
      .reverse();
    const { messages, nextCursor } = page(roots, args, limitArg(args, 100, 999), true);
    return {
      ok: true,
      ...pageBody(
        messages.map((m) => rootJson(m, ctx, withMetadata)),
        nextCursor,
      ),
      pin_count: 0,
      channel_actions_ts: null,
      channel_actions_count: 0,
    };
  },

  // A thread oldest first: the parent leads every page, the window and limit apply to the replies.
  // `ts` may name the parent or any reply of the thread.
  "conversations.replies": (args, ctx) => {
    const channel = requireChannel(args, ctx);
    const ts = requireString(args, "ts");
    const named = ctx.store.get(channel, ts);
    if (named === undefined || named.ephemeralUser !== undefined) throw new ApiError("thread_not_found");
    const root = named.thread_ts === undefined ? named : ctx.store.get(channel, named.thread_ts);
    if (root === undefined) throw new ApiError("thread_not_found");
    const within = inWindow(args);
    const withMetadata = flag(args, "include_all_metadata");
    const replies = visibleReplies(ctx, channel, root.ts).filter(within);
    const { messages, nextCursor } = page(replies, args, limitArg(args, 1000, 1000), false);
    return {
      ok: true,
      ...pageBody(
        [rootJson(root, ctx, withMetadata), ...messages.map((m) => replyJson(m, root, ctx, withMetadata))],
        nextCursor,
      ),
    };
  },

  "usergroups.users.list": (args, ctx) => {
    const usergroup = requireString(args, "usergroup");
    const users = ctx.usergroups[usergroup];
    if (users === undefined) throw new ApiError("no_such_subteam");
    return { ok: true, users: [...users] };
  },

  "views.open": openView,

  "views.push": openView,

  "views.update": (args, ctx) => {
    const index = findOpenedView(ctx, args);
    const previous = ctx.views.opened[index] as Record<string, unknown>;
    const view = viewJson(checkedView(args, "modal"), String(previous.id), ctx);
    ctx.views.opened[index] = view;
    return { ok: true, view };
  },

  "views.publish": (args, ctx) => {
    const user = requireString(args, "user_id");
    const view = viewJson(checkedView(args, "home"), ctx.nextViewId(), ctx);
    ctx.views.published[user] = view;
    return { ok: true, view };
  },
};
