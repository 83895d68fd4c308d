// One Slack interaction is carried out once, however often it arrives. Slack retries events it
// thinks we missed (X-Slack-Retry-Num), and a captured request stays validly signed for five
// minutes, so the same click, submission or command can reach us twice. Each is recognised by the
// ids Slack gives it, remembered in Redis for a while, and a second arrival is acknowledged and
// dropped. The receiver's signature check refuses requests dated more than five minutes either
// side of our clock (slack/receiver/verify.ts).

import type { FirstTime } from "../redis/batched-first-time.js";

/** How long an interaction id is remembered: beyond the signature window and Slack's event retries. */
export const REPLAY_MEMORY_SECONDS = 3600;

export interface ReplayKey {
  scope: "slack-event" | "slack-action" | "slack-view" | "slack-command";
  key: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

/**
 * The identity Slack gives one delivery of an interaction: the event id; for clicks the user and
 * each action's id, block and action_ts; for a submission the view id and hash (the hash changes
 * whenever the view does); for commands and shortcuts the trigger id. Undefined when the body
 * carries none of them (then it cannot be told apart from a new one and is let through).
 */
export function replayKey(body: unknown): ReplayKey | undefined {
  if (!isObject(body)) return undefined;
  const eventId = str(body.event_id);
  if (eventId !== undefined) return { scope: "slack-event", key: eventId };
  const type = str(body.type);
  if (type === "block_actions") {
    const user = isObject(body.user) ? str(body.user.id) : undefined;
    const actions = Array.isArray(body.actions) ? body.actions.filter(isObject) : [];
    const parts = actions.map((a) => [str(a.action_id), str(a.block_id) ?? "", str(a.action_ts)]);
    if (
      user === undefined ||
      parts.length === 0 ||
      parts.some((p) => p[0] === undefined || p[2] === undefined)
    ) {
      return undefined;
    }
    return { scope: "slack-action", key: `${user}|${parts.map((p) => p.join("@")).join(",")}` };
  }
  if (type === "view_submission") {
    const view = isObject(body.view) ? body.view : {};
    const id = str(view.id);
    const hash = str(view.hash);
    return id === undefined || hash === undefined ? undefined : { scope: "slack-view", key: `${id}|${hash}` };
  }
  const triggerId = str(body.trigger_id);
  if (
    triggerId !== undefined &&
    (str(body.command) !== undefined || type === "shortcut" || type === "message_action")
  ) {
    return { scope: "slack-command", key: triggerId };
  }
  return undefined;
}

export interface ReplayGuardDeps {
  /** True the first time (scope, key) is seen within ttlSeconds (a Redis SET NX EX). */
  firstTime: FirstTime;
  log: {
    info(fields: Record<string, unknown>, message: string): void;
    warn(fields: Record<string, unknown>, message: string): void;
  };
}

/** One Slack delivery as the receivers hand it on (Bolt's ReceiverEvent). */
interface Delivery {
  body: unknown;
  retryNum?: number;
  retryReason?: string;
}

/**
 * Whether a delivery is to be handled: false for one already seen (the receiver acknowledges it,
 * so Slack stops retrying and shows no error, and it goes no further). When Redis cannot answer
 * it is handled: whatever it triggers must then record itself in Redis too and will fail there
 * with its own answer to the user, and the decisions themselves are guarded by the walk's state,
 * so nothing is done twice regardless.
 *
 * Slash commands do not pass here: the command inbox that records one after its ack drops a
 * repeat in the same script (see command-inbox.ts).
 */
export function replayGuard(deps: ReplayGuardDeps): (delivery: Delivery) => Promise<boolean> {
  return async ({ body, retryNum, retryReason }) => {
    const replay = replayKey(body);
    if (replay === undefined) return true;
    return deps.firstTime(replay.scope, replay.key, REPLAY_MEMORY_SECONDS).then(
      (first) => {
        if (!first) {
          deps.log.info(
            {
              scope: replay.scope,
              ...(retryNum === undefined ? {} : { retryNum }),
              ...(retryReason === undefined ? {} : { retryReason }),
            },
            "slack delivery already handled, ignoring the repeat",
          );
        }
        return first;
      },
      (error: unknown) => {
        deps.log.warn(
          { scope: replay.scope, err: error instanceof Error ? error.message : String(error) },
          "could not check a slack delivery for replays, handling it",
        );
        return true;
      },
    );
  };
}
