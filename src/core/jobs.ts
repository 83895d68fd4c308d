// Job payloads (zod, checked when a worker picks a job up) and the ids that make duplicates
// impossible: the same logical job always gets the same id, and BullMQ refuses a second one.
// BullMQ ids may not contain ':'.

import { z } from "zod";
import type { Postmortem } from "./history/postmortem.js";
import { STEP_IDS } from "./ids.js";

export const DiagnoseJobSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("incident"), incidentId: z.string(), n: z.number().int().positive() }),
  z.object({
    kind: z.literal("command"),
    command: z.enum(["diagnose", "audit"]),
    table: z.string(),
    channel: z.string(),
    user: z.string(),
    requestId: z.string(),
  }),
]);

/** A slash command recorded by the receiver, as Slack sent it (see the command inbox). */
export const InboxCommandSchema = z.object({
  text: z.string(),
  channel: z.string(),
  user: z.string(),
  /** Slack's trigger_id: unique per invocation, the replay key and the queued job's id. */
  triggerId: z.string().min(1),
});
export type InboxCommand = z.infer<typeof InboxCommandSchema>;

/** Ephemeral replies to one person; rendered by the Slack adapter when the job runs. */
const EphemeralSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("unknown-table"),
    input: z.string(),
    suggestion: z.string().optional(),
    command: z.string(),
  }),
  z.object({ kind: z.literal("failed"), message: z.string(), hint: z.string().optional() }),
  z.object({ kind: z.literal("status") }),
  z.object({ kind: z.literal("history"), table: z.string() }),
  /** Plain words (they may quote an upstream's), shown as typed, never as markup. */
  z.object({ kind: z.literal("text"), text: z.string() }),
  /** A slash command over a person's or a table's rate (core/command-rate.ts). */
  z.object({
    kind: z.literal("rate-limited"),
    limited: z.enum(["person", "table"]),
    table: z.string().optional(),
    limit: z.number().int(),
    windowSeconds: z.number().int(),
    retryAt: z.number(),
    retryIn: z.string(),
  }),
  /** "Start the fix" on a sweep digest line: where the incident's thread is. */
  z.object({
    kind: z.literal("fix-started"),
    table: z.string(),
    outcome: z.enum(["opened", "already-open"]),
    incidentId: z.string(),
  }),
]);

export const SlackJobSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("root"), incidentId: z.string() }),
  z.object({ kind: z.literal("card"), incidentId: z.string(), version: z.number().int() }),
  z.object({ kind: z.literal("diagnosis"), incidentId: z.string(), n: z.number().int().positive() }),
  z.object({ kind: z.literal("note"), incidentId: z.string(), key: z.string(), text: z.string() }),
  /** Plain words top-level in a channel, once under its key (of no incident: the opening cap's note). */
  z.object({ kind: z.literal("channel-note"), channel: z.string(), key: z.string(), text: z.string() }),
  /** Diagnosis n repeats an earlier incident of the table: one line under it says what fixed that one. */
  z.object({
    kind: z.literal("earlier"),
    incidentId: z.string(),
    n: z.number().int().positive(),
    earlier: z.object({
      incidentId: z.string(),
      openedAtMs: z.number(),
      fixedBy: z.enum(STEP_IDS).optional(),
      fixedAfterMs: z.number().optional(),
      didNotHelp: z.array(z.enum(STEP_IDS)),
      /** Properties the fix set that the table no longer holds: the likely reason it failed again. */
      lost: z.array(z.object({ key: z.string(), setTo: z.string(), now: z.string().nullable() })),
    }),
  }),
  /**
   * The postmortem of a resolved incident: a canvas (or a markdown file) and a note in the thread;
   * drafted when sent from what is stored unless the request carries it.
   */
  z.object({
    kind: z.literal("postmortem"),
    incidentId: z.string(),
    postmortem: z.custom<Postmortem>((v) => typeof v === "object" && v !== null).optional(),
    /** A newer version of one already posted (an open item marked done since): its canvas is edited. */
    edit: z.boolean().optional(),
  }),
  z.object({
    kind: z.literal("command-result"),
    key: z.string(),
    channel: z.string(),
    /** The open incident's thread, when there is one. */
    incidentId: z.string().optional(),
    result: z.discriminatedUnion("type", [
      z.object({ type: z.literal("diagnosis"), report: z.unknown() }),
      z.object({ type: z.literal("audit"), report: z.unknown() }),
    ]),
  }),
  z.object({
    kind: z.literal("ephemeral"),
    channel: z.string(),
    user: z.string(),
    reply: EphemeralSchema,
    /**
     * Queued after this incident's own messages: an answer that links the incident's thread
     * ("Start the fix") is rendered only once its root message is posted.
     */
    incidentId: z.string().optional(),
  }),
  /**
   * "Show all evidence": the receiver opened a placeholder modal (its external id is `viewId`) with
   * the click's short-lived trigger; the worker fills it with diagnosis n's evidence.
   */
  z.object({
    kind: z.literal("evidence"),
    incidentId: z.string(),
    n: z.number().int().positive(),
    viewId: z.string(),
  }),
]);

export type DiagnoseJob = z.infer<typeof DiagnoseJobSchema>;
export type SlackJob = z.infer<typeof SlackJobSchema>;
export type EphemeralReply = z.infer<typeof EphemeralSchema>;

/** Makes any text safe inside a job id (no ':'), keeping it readable. */
export function idPart(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 120);
}

export function diagnoseJobId(job: DiagnoseJob): string {
  return job.kind === "incident"
    ? `diagnose-${idPart(job.incidentId)}-${job.n}`
    : `${job.command}-cmd-${idPart(job.requestId)}`;
}

export function slackJobId(job: SlackJob): string | undefined {
  switch (job.kind) {
    case "root":
      return `root-${idPart(job.incidentId)}`;
    case "card":
      return `card-${idPart(job.incidentId)}-${job.version}`;
    case "diagnosis":
      return `diagnosis-${idPart(job.incidentId)}-${job.n}`;
    case "note":
      return `note-${idPart(job.incidentId)}-${idPart(job.key)}`;
    case "earlier":
      return `earlier-${idPart(job.incidentId)}-${job.n}`;
    case "postmortem":
      return `postmortem-${idPart(job.incidentId)}`;
    case "command-result":
      return `result-${idPart(job.key)}`;
    case "channel-note":
      return `channel-note-${idPart(job.key)}`;
    case "ephemeral":
      // Ephemeral replies are one per request and harmless to repeat: no dedupe id.
      return undefined;
    case "evidence":
      return `evidence-${idPart(job.viewId)}`;
  }
}

// The remediation queue: applying an approved change, the delayed follow-up checks and reverts.
export const RemediationJobSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("apply"),
    incidentId: z.string(),
    stepId: z.enum(STEP_IDS),
    proposalId: z.string(),
    attempt: z.number().int().positive(),
  }),
  z.object({
    kind: z.literal("check"),
    incidentId: z.string(),
    stepId: z.enum(STEP_IDS),
    proposalId: z.string(),
    checkIndex: z.number().int().positive(),
  }),
  z.object({
    kind: z.literal("revert"),
    incidentId: z.string(),
    stepId: z.enum(STEP_IDS),
    attempt: z.number().int().positive(),
  }),
  // A person's click or apply-form submission, recorded by the receiver and carried out by a
  // worker. `slackId` is Slack's own id of that delivery, so a repeat adds the same job once.
  z.object({
    kind: z.literal("click"),
    button: z.enum(["done", "skip", "stop", "revert", "next", "item-done"]),
    incidentId: z.string(),
    stepId: z.enum(STEP_IDS),
    proposalId: z.string(),
    user: z.string(),
    slackId: z.string(),
  }),
  z.object({
    kind: z.literal("approval"),
    incidentId: z.string(),
    stepId: z.enum(STEP_IDS),
    proposalId: z.string(),
    user: z.string(),
    reason: z.string().optional(),
    confirmed: z.boolean(),
    slackId: z.string(),
  }),
  // Apply pressed: the receiver opened a placeholder form (external id `viewId`) with the click's
  // trigger; the worker checks who and when, then fills it with the form or the refusal.
  z.object({
    kind: z.literal("apply-form"),
    incidentId: z.string(),
    stepId: z.enum(STEP_IDS),
    proposalId: z.string(),
    user: z.string(),
    slackId: z.string(),
    viewId: z.string(),
  }),
  // Autopilot: "fire" is the delayed job at the end of a hold-off; "hold" and "apply-now" are the
  // announcement's buttons, recorded by the receiver like any click (`slackId`).
  z.object({
    kind: z.literal("autopilot"),
    action: z.enum(["fire", "hold", "apply-now"]),
    incidentId: z.string(),
    stepId: z.enum(STEP_IDS),
    proposalId: z.string(),
    user: z.string().optional(),
    slackId: z.string().optional(),
  }),
]);

export type RemediationJob = z.infer<typeof RemediationJobSchema>;

export function remediationJobId(job: RemediationJob): string {
  if (job.kind === "click" || job.kind === "approval" || job.kind === "apply-form")
    return `${job.kind}-${idPart(job.slackId)}`;
  if (job.kind === "autopilot")
    return job.action === "fire" || job.slackId === undefined
      ? `autopilot-${idPart(job.incidentId)}-${job.stepId}-${idPart(job.proposalId)}`
      : `autopilot-${job.action}-${idPart(job.slackId)}`;
  const base = `${job.kind}-${idPart(job.incidentId)}-${job.stepId}`;
  switch (job.kind) {
    case "apply":
      return `${base}-${idPart(job.proposalId)}-${job.attempt}`;
    case "check":
      return `${base}-${idPart(job.proposalId)}-${job.checkIndex}`;
    case "revert":
      return `${base}-${job.attempt}`;
  }
}
