// The remediation record: the aggregate guided remediation decides on. It holds the walk (state machine
// state), the proposals posted for it with their ids, and the counters that make job ids unique.
// Stored as JSON by the remediation store, checked against the schema below whenever it is read
// (record-format.ts); decided on by decide() in decide.ts. The schemas are built on their first
// parse (z.lazy), as the walk's are.

import { z } from "zod";
import type { StepId } from "../ids.js";
import type { OpenItem } from "../verification/open-items.js";
import { type Known, runsOf, StepIdSchema, WalkStateSchema } from "./walk.js";

/** An earlier incident's lesson, kept with the walk so each proposal can be marked by it. */
const MemorySchema = z.lazy(() =>
  z.looseObject({
    earlierIncidentId: z.string(),
    fixedBy: StepIdSchema.optional(),
    didNotHelp: z.array(StepIdSchema),
  }),
);

// Loose objects: a record written by the next release (fields added) still reads after a rollback.
export const RemediationRecordSchema = z.lazy(() =>
  z.looseObject({
    /** Stored format (record-format.ts); absent in what 0.1.0 wrote, set by the read before this check. */
    format: z.number().optional(),
    incidentId: z.string().min(1),
    table: z.string().min(1),
    channel: z.string(),
    walk: WalkStateSchema,
    /** Every proposal posted, oldest first; a step's last one is the live one (its buttons carry its id). */
    proposals: z.array(z.looseObject({ id: z.string(), stepId: StepIdSchema, atMs: z.number() })),
    /** Bumped for each apply the machine asks for; part of the apply job id. */
    applySeq: z.number().int().min(0),
    revertSeq: z.number().int().min(0),
    /** The diagnosis whose next step was proposed, so a retried diagnosis job proposes once. */
    proposedForDiagnosis: z.number().optional(),
    /**
     * The writer the follow-ups watch: the one the diagnosis named as failing (its name, committer
     * operator and failure time let a successor run count as it), or the one a check identified.
     */
    writer: z
      .looseObject({
        kind: z.enum(["flink-job", "connector"]),
        id: z.string(),
        name: z.string().optional(),
        operatorId: z.string().optional(),
        failedAtMs: z.number().optional(),
        /** The Flink source or Connect cluster it runs on, when the bot reads named sources. */
        cluster: z.string().optional(),
      })
      .optional(),
    /**
     * When the writer's first snapshot after the change landed. Kept for readers of older records;
     * `recovery` says the same with the change time and whether the change earned it.
     */
    recoveredAtMs: z.number().optional(),
    /**
     * The writer's first commit after the resolving step's change (core/verification/recovery.ts).
     * Added in format 2: a record without it reads by recoveredAtMs.
     */
    recovery: z
      .looseObject({
        /** When the writer's first commit after the change landed. */
        atMs: z.number(),
        /** When the change counts from (core/verification/recovery.ts changeTimeOf). */
        changeAtMs: z.number(),
        credit: z.enum(["fixed", "already-flowing"]),
        stepId: StepIdSchema,
      })
      .optional(),
    /** What the table's earlier incident with the same cause says about the steps (core/history). */
    memory: MemorySchema.optional(),
    /** What the diagnosis leaves for a person (a duplicate to remove), and who marked it done. */
    openItems: z
      .array(
        z.looseObject({
          id: z.string(),
          text: z.string(),
          statement: z.string().optional(),
          resolvedBy: StepIdSchema.optional(),
          doneBy: z.string().optional(),
          doneAtMs: z.number().optional(),
        }),
      )
      .optional(),
  }),
);

/** The stored open items are checked for the fields the bot reads back; the rest are kept as written. */
export type RemediationRecord = Omit<Known<z.infer<typeof RemediationRecordSchema>>, "openItems"> & {
  openItems?: OpenItem[];
};
export type RemediationMemory = Known<z.infer<typeof MemorySchema>>;

export interface Versioned<T> {
  version: number;
  value: T;
}

/** The proposal id of the live proposal for a step (the newest one). */
/** Position of a step in the walk (1-based), as "step N": distinct steps in proposal order. */
export function stepIndex(record: RemediationRecord, stepId: StepId): number {
  const distinct: StepId[] = [];
  for (const p of record.proposals) if (!distinct.includes(p.stepId)) distinct.push(p.stepId);
  const at = distinct.indexOf(stepId);
  return at === -1 ? distinct.length + 1 : at + 1;
}

export function proposalIdFor(record: RemediationRecord, stepId: string): string | undefined {
  return record.proposals.findLast((p) => p.stepId === stepId)?.id;
}

/**
 * The people working an incident's walk: whoever asked for, approved, applied or skipped one of
 * its steps. They own it while it is open, so a table limit others filled never turns them away.
 */
export function peopleOnWalk(record: RemediationRecord): Set<string> {
  const runs = runsOf(record.walk);
  const people = new Set<string>();
  for (const run of runs) {
    for (const who of [run.requestedBy, run.appliedBy, run.skippedBy, ...run.approvals.map((a) => a.user)])
      if (who) people.add(who);
  }
  return people;
}
