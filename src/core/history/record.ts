// The incident history: what one closed incident of a table leaves behind, kept per table so the
// next incident can start from what fixed (or did not fix) the last one. Pure data built from the
// incident's story (core/story: the remediation record, the incident and its first report), so the
// history states the recovery and the open items every other surface states; stored as JSON
// (history-store.ts).

import { z } from "zod";
import { type FindingId, ROOT_CAUSE_IDS, type StepId, TRIAGE_IDS } from "../ids.js";
import type { Incident } from "../incident/model.js";
import type { RemediationRecord } from "../remediation/record.js";
import { checkOutcome, runsOf, type StepRun } from "../remediation/walk.js";
import type { Report } from "../report/schema.js";
import type { StoryRemark } from "../story/model.js";
import { storyOf } from "../story/story.js";
import { changeTimeOf, type Recovery, recoveryAfterMs } from "../verification/recovery.js";

/** Stored format of a history record; bumped when a release changes it incompatibly. */
export const HISTORY_FORMAT = 1;

/**
 * What came of one proposed step: "fixed", the writer recovered after it; "did-not-help", applied
 * (or done by hand) and followed up without recovery; "not-needed", the writer was committing
 * already when it was made, so it fixed nothing and failed at nothing; "not-tried", skipped,
 * superseded or stopped before it was tried; "open", still open when the incident closed.
 */
const STEP_OUTCOMES = ["fixed", "did-not-help", "not-needed", "not-tried", "open"] as const;

// The stored form, checked on every read, nested fields included, so one damaged record is passed
// over instead of failing each diagnosis of its table. Loose objects and plain strings for ids: a
// record a newer release wrote (fields or finding ids added) still reads; what it added is kept
// and simply matches nothing here. Fields older records lack are taken as they come.

/** An id stored as a plain string, typed as the id it was written as. */
const storedId = <T extends string>() => z.string() as unknown as z.ZodType<T, string>;

const HistoryStepSchema = z.looseObject({
  stepId: storedId<StepId>(),
  proposedAtMs: z.number(),
  /** Everyone who approved it, in order, with when the last approval came. */
  approvedBy: z.array(z.string()),
  approvedAtMs: z.number().optional(),
  /** Each approval with its time (records written before it have approvedAtMs only). */
  approvals: z.custom<Array<{ user: string; atMs: number }>>().optional(),
  skippedBy: z.string().optional(),
  skippedAtMs: z.number().optional(),
  /** When the change was made (by the bot, or marked done by hand). */
  appliedAtMs: z.number().optional(),
  appliedBy: z.string().optional(),
  /** Table properties the change set, for the check that they still hold later. */
  setProperties: z.record(z.string(), z.string()).optional(),
  outcome: z.enum(STEP_OUTCOMES),
  /** When the writer's first commit after the change landed, and how long after the change. */
  recoveredAtMs: z.number().optional(),
  recoveredAfterMs: z.number().optional(),
  /** When the step ended (skipped, stopped, or its last check without recovery). */
  endedAtMs: z.custom<number>().optional(),
});
type HistoryStep = z.output<typeof HistoryStepSchema>;
type StepOutcome = HistoryStep["outcome"];

const HistoryRecordSchema = z.looseObject({
  format: z.number().int().min(1),
  incidentId: z.string().min(1),
  table: z.string().min(1),
  channel: z.string(),
  rootTs: z.string().optional(),
  state: z.enum(["resolved", "stopped"]),
  openedAtMs: z.number(),
  closedAtMs: z.number(),
  /** When the first diagnosis was made. */
  diagnosedAtMs: z.number().optional(),
  verdict: z.string(),
  findings: z.array(storedId<FindingId>()),
  /** The triage finding and the root cause the match compares (RUNBOOK §3). */
  triage: storedId<FindingId>().optional(),
  rootCause: storedId<FindingId>().optional(),
  /** The writer's kind, the table class the fleet metrics count by. */
  writerKind: z.enum(["flink", "connect", "unknown"]),
  steps: z.array(HistoryStepSchema),
  /** The step after which the writer recovered. */
  fixedBy: storedId<StepId>().optional(),
  recoveredAtMs: z.number().optional(),
  /**
   * What a person still had to do when the incident closed (open items and risks not marked done);
   * records written before open items were kept have none.
   */
  openItems: z.array(z.string()).default([]),
  /** Who handled the incident, when someone claimed it or acted (absent in older records). */
  owner: z.custom<{ user: string; how: "claimed" | "acted" }>().optional(),
  /** What people wrote in the thread (absent in older records). */
  remarks: z.custom<StoryRemark[]>().optional(),
});

export type IncidentHistory = z.output<typeof HistoryRecordSchema>;

/** A stored record, or why it cannot be read ("steps.0: …"). */
export function readHistoryRecord(
  raw: unknown,
): { ok: true; record: IncidentHistory } | { ok: false; why: string } {
  const parsed = HistoryRecordSchema.safeParse(raw);
  if (parsed.success) return { ok: true, record: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, why: `${issue?.path.join(".") || "record"}: ${issue?.message ?? "invalid"}` };
}

const TRIAGE = new Set<string>(TRIAGE_IDS);
const ROOT = new Set<string>(ROOT_CAUSE_IDS);

/** The triage finding and root cause of a diagnosis: the key two incidents are matched on. */
export function causeKey(diagnosis: { verdict: string; findings: ReadonlyArray<{ id: FindingId }> }): {
  triage?: FindingId;
  rootCause?: FindingId;
} {
  const triage =
    diagnosis.findings.find((f) => f.id === diagnosis.verdict && TRIAGE.has(f.id))?.id ??
    diagnosis.findings.find((f) => TRIAGE.has(f.id))?.id;
  const rootCause = diagnosis.findings.find((f) => ROOT.has(f.id))?.id;
  return { ...(triage ? { triage } : {}), ...(rootCause ? { rootCause } : {}) };
}

function outcomeOf(run: StepRun): StepOutcome {
  switch (run.phase) {
    case "recovered":
      return "fixed";
    case "ineffective":
      // Its last check could not read the table: nothing is known of what it did.
      return lastCheckUnseen(run) ? "open" : "did-not-help";
    case "reverted":
    case "reverting":
      return "did-not-help";
    case "skipped":
    case "superseded":
    case "stopped":
    case "failed":
      return run.appliedAtMs !== undefined && run.checksDone > 0 ? "did-not-help" : "not-tried";
    default:
      return "open";
  }
}

function stepOf(run: StepRun, recovery: Pick<Recovery, "atMs" | "credit"> | undefined): HistoryStep {
  const ran = outcomeOf(run);
  const outcome = ran === "fixed" && recovery?.credit === "already-flowing" ? "not-needed" : ran;
  const approvals = run.approvals;
  const set =
    run.change.kind === "table-properties"
      ? Object.fromEntries(
          run.change.changes.flatMap((c) => (c.proposed === null ? [] : [[c.key, c.proposed] as const])),
        )
      : undefined;
  const recoveredAt = outcome === "fixed" ? (recovery?.atMs ?? run.endedAtMs) : undefined;
  const changeAt = changeTimeOf(run);
  return {
    stepId: run.stepId,
    proposedAtMs: run.proposedAtMs,
    approvedBy: approvals.map((a) => a.user),
    ...(approvals.length > 0
      ? {
          approvedAtMs: approvals[approvals.length - 1]!.atMs,
          approvals: approvals.map((a) => ({ user: a.user, atMs: a.atMs })),
        }
      : {}),
    ...(run.phase === "skipped" ? { skippedAtMs: run.endedAtMs ?? run.proposedAtMs } : {}),
    ...(run.skippedBy ? { skippedBy: run.skippedBy } : {}),
    ...(run.appliedAtMs !== undefined ? { appliedAtMs: run.appliedAtMs } : {}),
    ...(run.appliedBy ? { appliedBy: run.appliedBy } : {}),
    ...(set && Object.keys(set).length > 0 && run.appliedAtMs !== undefined ? { setProperties: set } : {}),
    outcome,
    ...(run.endedAtMs !== undefined ? { endedAtMs: run.endedAtMs } : {}),
    ...(recoveredAt !== undefined
      ? {
          recoveredAtMs: recoveredAt,
          recoveredAfterMs: recoveryAfterMs({ atMs: recoveredAt, changeAtMs: changeAt }),
        }
      : {}),
  };
}

/** True when the run's last check could not read what it needed. */
function lastCheckUnseen(run: StepRun): boolean {
  const check = run.checks[run.checks.length - 1];
  return check !== undefined && checkOutcome(check) === "could-not-check";
}

export interface HistoryInput {
  incident: Pick<Incident, "id" | "table" | "channel" | "rootTs" | "openedAt">;
  state: IncidentHistory["state"];
  closedAtMs: number;
  walk?: RemediationRecord;
  /** The first diagnosis of the incident, and when it was made. */
  report?: Pick<Report, "verdict" | "findings" | "writer">;
  diagnosedAtMs?: number;
  remarks?: readonly StoryRemark[];
  claim?: { user: string; atMs: number };
}

/** The history record of a closed incident. */
export function historyOf(input: HistoryInput): IncidentHistory {
  const { incident, walk, report } = input;
  const story = storyOf({
    incident: {
      ...incident,
      state: input.state,
      updatedAt: input.closedAtMs,
      resolvedAt: input.closedAtMs,
      alertCount: 0,
      diagnoses: 0,
      cardVersion: 0,
    },
    ...(walk ? { walk } : {}),
    ...(input.remarks ? { remarks: input.remarks } : {}),
    ...(input.claim ? { claim: input.claim } : {}),
  });
  // The one measure of recovery: the story's (change → the writer's first commit).
  const recovery = story.recovery;
  const runs = walk ? runsOf(walk.walk) : [];
  const steps = runs.map((run) => stepOf(run, recovery));
  const fixed = steps.find((s) => s.outcome === "fixed");
  const key = report ? causeKey(report) : {};
  const writerKind = report?.writer?.kind ?? (walk?.writer?.kind === "connector" ? "connect" : "unknown");
  return {
    format: HISTORY_FORMAT,
    incidentId: incident.id,
    table: incident.table,
    channel: incident.channel,
    ...(incident.rootTs ? { rootTs: incident.rootTs } : {}),
    state: input.state,
    openedAtMs: incident.openedAt,
    closedAtMs: input.closedAtMs,
    ...(input.diagnosedAtMs !== undefined ? { diagnosedAtMs: input.diagnosedAtMs } : {}),
    verdict: report?.verdict ?? "unknown",
    findings: (report?.findings ?? []).map((f) => f.id),
    ...key,
    writerKind: writerKind === "flink" || writerKind === "connect" ? writerKind : "unknown",
    steps,
    ...(fixed ? { fixedBy: fixed.stepId } : {}),
    ...(fixed?.recoveredAtMs !== undefined ? { recoveredAtMs: fixed.recoveredAtMs } : {}),
    openItems: story.openItems.filter((i) => i.doneBy === undefined).map((i) => i.text),
    ...(story.owner ? { owner: { user: story.owner.user, how: story.owner.how } } : {}),
    ...(story.remarks.length > 0 ? { remarks: story.remarks } : {}),
  };
}
