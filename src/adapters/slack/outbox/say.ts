// What the services say in Slack, as outbox entries: a Slack request (the status card, diagnoses,
// notes, results, answers), a walk's message (remediation's notifier, or saved with the walk
// record in one step), each becomes the delivery deliveries.ts defines, in its queue: an
// incident's thread, a channel's top level or a person's answers. The one poster sends them in
// each queue's order, each once (see poster.ts).

import type { RemediationRecord } from "../../../core/remediation/record.js";
import type {
  ApplyFormContent,
  RemediationMessage,
  RemediationNotifier,
  RemediationThread,
  SlackMessageRequest,
  SlackOutboxPort,
} from "../../../services/ports.js";
import type { IncidentStore } from "../../store/incident-store.js";
import type { OwedWithWalk } from "../../store/remediation-store.js";
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
        delivery: {
          // A later version replaces the posted canvas's content; the first is posted once.
          kind: request.edit ? "postmortem-edit" : "postmortem",
          name: "postmortem",
          ...(request.postmortem ? { postmortem: request.postmortem } : {}),
        },
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

/**
 * The notifier remediation uses when deliveries go through the outbox: each call records an entry
 * and returns; the poster sends it. Only the apply form is filled in at once (the person is
 * looking at its placeholder).
 */
export class OutboxNotifier implements RemediationNotifier {
  constructor(
    private readonly outbox: SlackOutbox,
    private readonly now: () => number,
    private readonly fillForm: (viewId: string, content: ApplyFormContent) => Promise<boolean>,
  ) {}

  async say(thread: RemediationThread, message: RemediationMessage): Promise<void> {
    await this.outbox.append(thread.incidentId, thread.channel, this.now(), deliveryFor(thread, message));
  }

  /** The one thing said at once, not through the outbox: a modal's trigger lasts 3 s. */
  fillApplyForm(viewId: string, content: ApplyFormContent): Promise<boolean> {
    return this.fillForm(viewId, content);
  }
}

/** How the remediation store saves a change's messages with it: as the entries the notifier would append. */
export function owedWithWalk(outbox: SlackOutbox, now: () => number): OwedWithWalk {
  return {
    now,
    appendKeys: (incidentId) => outbox.appendKeys(incidentId),
    entryJson: (record: RemediationRecord, message: RemediationMessage, atMs: number) =>
      outbox.entryJson(record.incidentId, record.channel, atMs, deliveryFor(record, message)),
  };
}

/** The outbox entry of one walk message: the same whether the notifier or the remediation store records it. */
function deliveryFor(thread: RemediationThread, message: RemediationMessage): OutboxDelivery {
  switch (message.kind) {
    case "post-proposal": {
      // A proposal waits (bounded) for the diagnosis message it answers.
      const afterName =
        thread.proposedForDiagnosis === undefined ? undefined : `diagnosis-${thread.proposedForDiagnosis}`;
      const proposal = { kind: "proposal", view: message.view } as const;
      return { kind: "post", name: message.name, message: proposal, ...(afterName ? { afterName } : {}) };
    }
    case "update-proposal": {
      const { view, note, withButtons } = message;
      return { kind: "update", name: message.name, message: { kind: "proposal", view, note, withButtons } };
    }
    case "upsert-verification":
      return { kind: "upsert", name: message.name, message: { kind: "verification", view: message.view } };
    case "note":
      return { kind: "post", name: message.name, message: { kind: "note", note: message.note } };
    case "update-note":
      return { kind: "update", name: message.name, message: { kind: "note", note: message.note } };
    case "ephemeral":
      return { kind: "ephemeral", user: message.user, notice: message.notice };
    case "card":
      return { kind: "card" };
    case "postmortem":
      return { kind: "postmortem", name: message.name };
    case "chart":
      return { kind: "chart", name: message.name, chart: message.chart, file: message.file };
  }
}
