// How a service's Slack request becomes an outbox entry: the status card (root and edits),
// diagnoses, notes and slash-command results in an incident's thread; a command result with no
// incident open goes top-level, queued per channel; ephemeral answers are queued per person.
// The one poster sends them in each queue's order, each once (see poster.ts).

import type { SlackMessageRequest, SlackOutboxPort } from "../../../services/ports.js";
import type { IncidentStore } from "../../store/incident-store.js";
import { channelQueueId, type OutboxDelivery, replyQueueId, type SlackOutbox } from "./outbox.js";

/** The queue and the delivery a request stands for. */
function outboxDelivery(request: SlackMessageRequest): { queueId: string; delivery: OutboxDelivery } {
  switch (request.kind) {
    case "root":
      return { queueId: request.incidentId, delivery: { kind: "root" } };
    case "card":
      return { queueId: request.incidentId, delivery: { kind: "card" } };
    case "diagnosis":
      return { queueId: request.incidentId, delivery: { kind: "diagnosis", n: request.n } };
    case "note":
      return {
        queueId: request.incidentId,
        delivery: {
          kind: "post",
          name: `note-${request.key}`,
          message: { kind: "text", text: request.text },
        },
      };
    case "earlier":
      return {
        queueId: request.incidentId,
        delivery: {
          kind: "post",
          name: `earlier-${request.n}`,
          message: { kind: "note", note: { kind: "seen-before", earlier: request.earlier } },
          afterName: `diagnosis-${request.n}`,
        },
      };
    case "postmortem":
      return {
        queueId: request.incidentId,
        delivery: { kind: "postmortem", name: "postmortem", postmortem: request.postmortem },
      };
    case "command-result":
      if (!request.incidentId)
        return {
          queueId: channelQueueId(request.channel),
          delivery: { kind: "channel-result", name: `result-${request.key}`, result: request.result },
        };
      return {
        queueId: request.incidentId,
        delivery: { kind: "command-result", name: `result-${request.key}`, result: request.result },
      };
    case "channel-note":
      return {
        queueId: channelQueueId(request.channel),
        delivery: {
          kind: "channel-post",
          name: `channel-note-${request.key}`,
          message: { kind: "text", text: request.text },
        },
      };
    case "ephemeral":
      return {
        queueId: request.incidentId ?? replyQueueId(request.user),
        delivery: { kind: "reply", user: request.user, reply: request.reply },
      };
  }
}

/**
 * The services' one way to Slack: each request is an outbox entry (undefined when its incident
 * is gone). Entries are cheap to repeat: the poster posts each name once.
 */
export function slackOutboxSender(
  outbox: SlackOutbox,
  store: Pick<IncidentStore, "get">,
  /** Real time: entries are scheduled in it, whatever clock the incident reads. */
  now: () => number,
): SlackOutboxPort {
  return {
    async send(request) {
      const { queueId, delivery } = outboxDelivery(request);
      if (
        request.kind === "ephemeral" ||
        request.kind === "channel-note" ||
        (request.kind === "command-result" && !request.incidentId)
      )
        return outbox.append(queueId, request.channel, now(), delivery);
      const incident = await store.get(queueId);
      if (!incident) return undefined;
      const channel = request.kind === "command-result" ? request.channel : incident.channel;
      return outbox.append(queueId, channel, now(), delivery);
    },
  };
}
