// The Web API methods the bot uses, answered the way Slack answers them: HTTP 200 with
// {ok:true,...} or {ok:false,error,response_metadata?}. Argument checks follow the request types in
// @slack/web-api (ChatPostMessageArguments, ViewsOpenArguments, …).

import { checkBlocks, checkView } from "./block-rules.js";
import type { MessageStore } from "./message-store.js";
import type { StoredMessage } from "./types.js";

/** Slack caps the text field at 40,000 characters and answers msg_too_long above it. */
export const MAX_MESSAGE_TEXT = 40_000;

export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly messages: string[] = [],
  ) {
    super(code);
  }
}

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

/** Stores a posted message (ephemeral when `ephemeralUser` is given) in the channel or thread. */
function addPosted(
  args: Record<string, unknown>,
  channel: string,
  ctx: MethodContext,
  ephemeralUser?: string,
): StoredMessage {
  const { text, blocks } = messageContents(args, true);
  const thread_ts = threadRoot(args, channel, ctx);
  return ctx.store.add({
    channel,
    ts: ctx.store.nextTs(),
    ...(thread_ts === undefined ? {} : { thread_ts }),
    text: text ?? "",
    blocks: blocks ?? [],
    user: ctx.botUserId,
    ...(ephemeralUser === undefined ? {} : { ephemeralUser }),
  });
}

function messageJson(message: StoredMessage, ctx: MethodContext): Record<string, unknown> {
  return {
    type: "message",
    user: message.user,
    bot_id: ctx.botId,
    text: message.text,
    blocks: message.blocks,
    ts: message.ts,
    ...(message.thread_ts === undefined ? {} : { thread_ts: message.thread_ts }),
    team: ctx.teamId,
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
    app_id: "A0STANDIN",
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
    const existing = ctx.store.get(channel, ts);
    if (existing === undefined) throw new ApiError("message_not_found");
    if (existing.ephemeralUser !== undefined) throw new ApiError("cant_update_message");
    // Slack keeps the previous blocks when an update leaves them out; [] removes them.
    const updated = ctx.store.update(channel, ts, { text: text ?? "", blocks: blocks ?? existing.blocks })!;
    return { ok: true, channel, ts, text: updated.text, message: messageJson(updated, ctx) };
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
