// The outbox's delivery kinds, each defined once: what an entry of that kind shows (its view) and
// how it is sent (post once, update, ephemeral, publish, upload, canvas), under which name. The
// outbox reads entries by this table and the poster sends what it says; nothing else lists kinds.

import type { TimelineChart } from "../../../core/chart/timeline.js";
import type { Postmortem } from "../../../core/history/postmortem.js";
import type { Incident } from "../../../core/incident/model.js";
import type { EphemeralReply } from "../../../core/jobs.js";
import type { Notice } from "../../../core/remediation/walk.js";
import type { TimelineFile } from "../../../services/ports.js";
import type { SlackMessage } from "../render/block-kit.js";
import type { SlackViews } from "../views.js";
import type { ChannelMessage, OutboxMessage } from "./messages.js";

export type { ChannelMessage } from "./messages.js";

export type OutboxDelivery =
  /** A thread message posted once under its name (after the named one, when it comes in time). */
  | { kind: "post"; name: string; message: OutboxMessage; afterName?: string }
  /** An edit of the named message (skipped when it was never posted). */
  | { kind: "update"; name: string; message: OutboxMessage }
  /** Posted under the name the first time, edited afterwards. */
  | { kind: "upsert"; name: string; message: OutboxMessage }
  | { kind: "ephemeral"; user: string; notice: Notice }
  /** The incident's root message, its status card: posted once (every other kind waits for it). */
  | { kind: "root" }
  /** An edit of the status card from the incident's current state. */
  | { kind: "card" }
  /** Diagnosis n in the thread, with its commit timeline under it. */
  | { kind: "diagnosis"; n: number }
  /** A slash command's result in the incident's thread, posted once under its name. */
  | { kind: "command-result"; name: string; result: unknown }
  /** A slash command's result top-level in the entry's channel (queued under channelQueueId). */
  | { kind: "channel-result"; name: string; result: unknown }
  /** A message of no incident (the sweep's digest, an audit in its thread), queued per channel. */
  | { kind: "channel-post"; name: string; threadTs?: string; message: ChannelMessage }
  /** A commit timeline shared in the incident's thread, once under its name. */
  | { kind: "chart"; name: string; chart: TimelineChart; file: TimelineFile }
  /**
   * The incident's postmortem: a canvas where the workspace allows one, else a markdown file in
   * the thread, then a note in the thread saying where it is; each once. Drafted when sent from
   * the history record unless the entry carries it.
   */
  | { kind: "postmortem"; name: string; postmortem?: Postmortem }
  /** A newer version of a posted postmortem: its canvas edited in place (a later one replaces it). */
  | { kind: "postmortem-edit"; name: string; postmortem?: Postmortem }
  /** A user's App Home, rendered when sent (queued under homeQueueId); a publish is an edit. */
  | { kind: "home"; user: string }
  /** An ephemeral answer to one person in the entry's channel (queued under replyQueueId). */
  | { kind: "reply"; user: string; reply: EphemeralReply };

export type DeliveryKind = OutboxDelivery["kind"];

type Render = () => SlackMessage | Promise<SlackMessage>;

/** One Slack operation an entry asks for; an entry is done when each of its sends is. */
export type Send =
  /**
   * Posted once under its name, found by its outbox id after a lost answer: in the incident's
   * thread, top-level in the channel, or in the given thread.
   */
  | { op: "post"; name: string; message: Render; in?: "channel" | { threadTs: string }; afterName?: string }
  /** An edit of the named message (at `ts` when known); when never posted, posted once (`orPost`) or skipped. */
  | { op: "update"; name: string; message: Render; orPost?: boolean; ts?: string }
  /** Seen by one person only, in the incident's thread when there is one. */
  | { op: "ephemeral"; user: string; message: Render }
  /** A user's App Home. */
  | { op: "publish"; user: string }
  /** A commit timeline shared once under its name, best effort. */
  | {
      op: "upload";
      name: string;
      draw: () => Promise<{ chart: TimelineChart; file: TimelineFile } | undefined>;
    }
  /** The postmortem document once (then its note), or (`edit`) the posted canvas edited in place. */
  | { op: "canvas"; name: string; postmortem?: Postmortem; edit?: boolean };

interface KindSpec<D> {
  /**
   * thread: shown in the incident's thread, so its root comes first; incident: about an incident
   * that must still be there; none: belongs to no incident (a channel, a person, App Home).
   */
  scope: "thread" | "incident" | "none";
  /** Shows the status card: done once the root was just posted from the current state. */
  card?: true;
  /** Named so a later entry of the same kind and name makes this one needless (card, App Home, canvas). */
  replacedBy?: (d: D) => string;
  /** Waits for something of its own (a history record): its delay says nothing about Slack. */
  waits?: true;
  sends(d: D, views: SlackViews, incident: Incident): Send[];
}

type Specs = { [K in DeliveryKind]: KindSpec<Extract<OutboxDelivery, { kind: K }>> };

const DELIVERIES: Specs = {
  post: {
    scope: "thread",
    sends: (d, v) => [
      { op: "post", name: d.name, message: () => v.message(d.message), afterName: d.afterName },
    ],
  },
  update: {
    scope: "thread",
    sends: (d, v) => [{ op: "update", name: d.name, message: () => v.message(d.message) }],
  },
  upsert: {
    scope: "thread",
    sends: (d, v) => [{ op: "update", name: d.name, message: () => v.message(d.message), orPost: true }],
  },
  ephemeral: {
    scope: "incident",
    sends: (d, v) => [{ op: "ephemeral", user: d.user, message: () => v.notice(d.notice) }],
  },
  root: { scope: "thread", card: true, sends: () => [] },
  card: {
    scope: "thread",
    card: true,
    replacedBy: () => "card",
    sends: (_, v, incident) => [
      { op: "update", name: "root", ts: incident.rootTs, message: () => v.card(incident) },
    ],
  },
  diagnosis: {
    scope: "thread",
    sends: (d, v, incident) => [
      { op: "post", name: `diagnosis-${d.n}`, message: () => v.diagnosis(incident.id, d.n) },
      { op: "upload", name: `diagnosis-${d.n}-chart`, draw: () => v.diagnosisChart(incident.id, d.n) },
    ],
  },
  "command-result": {
    scope: "thread",
    sends: (d, v) => [{ op: "post", name: d.name, message: () => v.commandResult(d.result) }],
  },
  chart: { scope: "thread", sends: (d) => [{ op: "upload", name: d.name, draw: async () => d }] },
  postmortem: {
    scope: "thread",
    waits: true,
    sends: (d) => [{ op: "canvas", name: d.name, ...(d.postmortem ? { postmortem: d.postmortem } : {}) }],
  },
  "postmortem-edit": {
    scope: "thread",
    waits: true,
    replacedBy: (d) => d.name,
    sends: (d) => [
      { op: "canvas", name: d.name, edit: true, ...(d.postmortem ? { postmortem: d.postmortem } : {}) },
    ],
  },
  "channel-result": {
    scope: "none",
    sends: (d, v) => [{ op: "post", name: d.name, in: "channel", message: () => v.commandResult(d.result) }],
  },
  "channel-post": {
    scope: "none",
    sends: (d, v) => [
      {
        op: "post",
        name: d.name,
        in: d.threadTs ? { threadTs: d.threadTs } : "channel",
        message: () => v.channelMessage(d.message),
      },
    ],
  },
  home: { scope: "none", replacedBy: () => "home", sends: (d) => [{ op: "publish", user: d.user }] },
  reply: {
    scope: "none",
    sends: (d, v) => [{ op: "ephemeral", user: d.user, message: () => v.reply(d.reply) }],
  },
};

/** How an entry of this delivery is sent; undefined for a kind this release does not know. */
export function deliverySpec(delivery: OutboxDelivery): KindSpec<OutboxDelivery> | undefined {
  if (!Object.hasOwn(DELIVERIES, delivery.kind)) return undefined;
  return DELIVERIES[delivery.kind] as KindSpec<OutboxDelivery>;
}

/** Whether this release knows how to send a delivery of this kind. */
export function isDeliveryKind(kind: unknown): kind is DeliveryKind {
  return typeof kind === "string" && Object.hasOwn(DELIVERIES, kind);
}
