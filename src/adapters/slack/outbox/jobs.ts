// Which Slack jobs the outbox carries: the status card (root and edits), diagnoses, notes and
// slash-command results in an incident's thread. They are written to the outbox when asked for,
// so the one poster sends them in the incident's order and one post-once mechanism guards them
// (the outbox id in the message's metadata). A command result with no incident open goes
// top-level, queued per channel. Ephemeral answers are queued per person.

import type { SlackJob } from "../../queue/jobs.js";
import type { BotQueues } from "../../queue/queues.js";
import type { IncidentStore } from "../../store/incident-store.js";
import { channelQueueId, type OutboxDelivery, replyQueueId, type SlackOutbox } from "./outbox.js";

/** The outbox delivery a job stands for, or undefined when the job queue carries it. */
export function outboxDelivery(job: SlackJob): { incidentId: string; delivery: OutboxDelivery } | undefined {
  switch (job.kind) {
    case "root":
      return { incidentId: job.incidentId, delivery: { kind: "root" } };
    case "card":
      return { incidentId: job.incidentId, delivery: { kind: "card" } };
    case "diagnosis":
      return { incidentId: job.incidentId, delivery: { kind: "diagnosis", n: job.n } };
    case "note":
      return {
        incidentId: job.incidentId,
        delivery: { kind: "post", name: `note-${job.key}`, message: { kind: "text", text: job.text } },
      };
    case "command-result":
      if (!job.incidentId)
        return {
          incidentId: channelQueueId(job.channel),
          delivery: { kind: "channel-result", name: `result-${job.key}`, result: job.result },
        };
      return {
        incidentId: job.incidentId,
        delivery: { kind: "command-result", name: `result-${job.key}`, result: job.result },
      };
    case "ephemeral":
      return {
        incidentId: replyQueueId(job.user),
        delivery: { kind: "reply", user: job.user, reply: job.reply },
      };
    case "evidence":
      return undefined;
  }
}

/**
 * Writes a job the outbox carries as an outbox entry; false when it is not one of those (or its
 * incident is gone). Entries are cheap to repeat: the poster posts each name once.
 */
export async function appendSlackJob(
  outbox: SlackOutbox,
  store: Pick<IncidentStore, "get">,
  job: SlackJob,
  now: () => number,
): Promise<string | undefined> {
  const routed = outboxDelivery(job);
  if (!routed) return undefined;
  if (
    job.kind === "ephemeral" ||
    (routed.delivery.kind === "channel-result" && job.kind === "command-result")
  )
    return outbox.append(routed.incidentId, job.channel, now(), routed.delivery);
  const incident = await store.get(routed.incidentId);
  if (!incident) return undefined;
  const channel = job.kind === "command-result" ? job.channel : incident.channel;
  // Scheduled in wall-clock time, whatever clock the incident reads.
  return outbox.append(routed.incidentId, channel, now(), routed.delivery);
}

/** The queues every service uses, with the outbox's kinds of Slack job written to the outbox. */
export function routeSlackJobs(
  queues: BotQueues,
  outbox: SlackOutbox,
  store: Pick<IncidentStore, "get">,
  /** Real time: entries are scheduled in it, whatever clock the incident reads. */
  now: () => number,
): BotQueues {
  return {
    ...queues,
    async enqueueSlack(job) {
      if (outboxDelivery(job)) {
        const id = await appendSlackJob(outbox, store, job, now);
        if (id !== undefined) return id;
      }
      return queues.enqueueSlack(job);
    },
  };
}
