// The remediation record: the aggregate guided remediation decides on. It holds the walk (state machine
// state), the proposals posted for it with their ids, and the counters that make job ids unique.
// Stored as JSON by the remediation store; decided on by decide() in decide.ts.

import type { StepId } from "../ids.js";
import type { OpenItem } from "../verification/open-items.js";
import type { Recovery } from "../verification/recovery.js";
import type { WalkState } from "./walk.js";

/** One proposal message: a step put to the thread. Buttons carry its id. */
interface ProposalRef {
  id: string;
  stepId: StepId;
  atMs: number;
}

export interface RemediationRecord {
  /** Stored format (record-format.ts); absent in what 0.1.0 wrote. */
  format?: number;
  incidentId: string;
  table: string;
  channel: string;
  walk: WalkState;
  /** Every proposal posted, oldest first; the last one for the current step is the live one. */
  proposals: ProposalRef[];
  /** Bumped for each apply the machine asks for; part of the apply job id. */
  applySeq: number;
  revertSeq: number;
  /** The diagnosis whose next step was proposed, so a retried diagnosis job proposes once. */
  proposedForDiagnosis?: number;
  /**
   * The writer the follow-ups watch: the one the diagnosis named as failing (its name, committer
   * operator and failure time let a successor run count as it), or the one a check identified.
   */
  writer?: {
    kind: "flink-job" | "connector";
    id: string;
    name?: string;
    operatorId?: string;
    failedAtMs?: number;
    /** The Flink source or Connect cluster it runs on, when the bot reads named sources. */
    cluster?: string;
  };
  /**
   * When the writer's first snapshot after the change landed. Kept for readers of older records;
   * `recovery` says the same with the change time and whether the change earned it.
   */
  recoveredAtMs?: number;
  /**
   * The writer's first commit after the resolving step's change: "fixed" only when the failing
   * writer was failing when the change was made and recovered after it; "already-flowing" when
   * it was committing already. Absent in records written before it.
   */
  recovery?: Recovery;
  /** What the table's earlier incident with the same cause says about the steps (core/history). */
  memory?: RemediationMemory;
  /** What the diagnosis leaves for a person (a duplicate to remove), and who marked it done. */
  openItems?: OpenItem[];
}

/** An earlier incident's lesson, kept with the walk so each proposal can be marked by it. */
export interface RemediationMemory {
  earlierIncidentId: string;
  fixedBy?: StepId;
  didNotHelp: StepId[];
}

export interface Versioned<T> {
  version: number;
  value: T;
}

/** The proposal id of the live proposal for a step (the newest one). */
export function proposalIdFor(record: RemediationRecord, stepId: string): string | undefined {
  for (let i = record.proposals.length - 1; i >= 0; i--) {
    const p = record.proposals[i];
    if (p?.stepId === stepId) return p.id;
  }
  return undefined;
}

/**
 * The people working an incident's walk: whoever asked for, approved, applied or skipped one of
 * its steps. They own it while it is open, so a table limit others filled never turns them away.
 */
export function peopleOnWalk(record: RemediationRecord): Set<string> {
  const runs = [...record.walk.history, ...(record.walk.current ? [record.walk.current] : [])];
  const people = new Set<string>();
  for (const run of runs) {
    for (const who of [run.requestedBy, run.appliedBy, run.skippedBy, ...run.approvals.map((a) => a.user)])
      if (who) people.add(who);
  }
  return people;
}
