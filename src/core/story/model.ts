// The incident's one story: every fact any surface states about an incident, worked out once from
// what is stored (the incident, its reports, the playbook walk, what people said and did). The card,
// the thread's check and recovery messages, App Home, `/iceberg status`, `/iceberg history`, the
// postmortem and the history record are renderings of an IncidentStory; none works out a fact of
// its own. Pure data: times are epoch milliseconds, words belong to the renderers.

import type { FindingId, StepId, TriageId } from "../ids.js";
import type { IncidentState } from "../incident/model.js";
import type { CheckRecord } from "../remediation/walk.js";
import type { Change, ReportWriter } from "../report/schema.js";
import type { UnansweredSource } from "../report/unanswered.js";
import type { CheckOutcome } from "../verification/check.js";
import type { OpenItem } from "../verification/open-items.js";
import type { Recovery } from "../verification/recovery.js";

/**
 * The failing writer's commit health, the only thing the card's colour follows: red failing, green
 * flowing, blue idle by design, grey unknown (a source the answer depends on did not answer).
 */
export type CommitHealth = "failing" | "flowing" | "idle" | "unknown";

/** The writer the story is about: the one whose own commits decide health and recovery. */
export type StoryWriter = Pick<ReportWriter, "kind" | "id" | "name" | "cluster">;

/** A source the bot could not read, and so a fact it must not claim. */
export type UnseenSource = UnansweredSource & {
  /** The source refused the bot's own credential (401/403): the bot's access, never the writer's failure. */
  refusedBot?: boolean;
};

/** Where the current (or last) step stands. */
export type StepState =
  | "awaiting-approval"
  /** The bot's apply did not go through; the step waits for a decision again. */
  | "apply-failed"
  | "applying"
  | "verifying"
  /** The checks ended and the failing writer's commits did not resume. */
  | "no-recovery"
  /** The last check could not read what recovery is judged on (a source did not answer). */
  | "could-not-check"
  | "done"
  | "skipped"
  | "reverting"
  | "reverted"
  | "stopped";

/** One follow-up check as it was judged; `unseen`: what could not be read, for a check that could not check. */
export type StoryCheck = Pick<CheckRecord, "index" | "atMs" | "detail" | "unseen"> & {
  outcome: CheckOutcome;
};

/**
 * A button a surface offers for the decision waiting on a person, with its action value: "apply"
 * and "done" while a proposal waits; "revert" and "next" once a step did not help (the
 * verification message's own buttons). For "next", the action's stepId is the step offered next.
 */
export interface StoryDecision {
  kind: "apply" | "done" | "revert" | "next";
  /** The playbook's title of the step the button is about (for "next", the step offered). */
  title?: string;
  action: { incidentId: string; stepId: StepId; proposalId: string };
}

export interface StoryStep {
  stepId: StepId;
  /** The live proposal of the step: the id its buttons carry. */
  proposalId?: string;
  /** The step's title as its playbook writes it, when the playbook is known. */
  title?: string;
  /** Position in the playbook ("step 2"). */
  index: number;
  state: StepState;
  change: Change;
  proposedAtMs: number;
  approvedBy: string[];
  /** When the change was made (by the bot, or when a person said it was done by hand). */
  changeAtMs?: number;
  changeBy?: string;
  byHand?: boolean;
  /** While verifying: which check the thread is on. */
  check?: { index: number; total: number };
  checks: StoryCheck[];
  /** Every button a person can press now for this step, in the order the thread offers them. */
  decisions: StoryDecision[];
  /** A read-only check: it only looks, so it ends "checked", never "no recovery". */
  readOnly?: boolean;
  /** Who skipped it, reverted it or stopped it, when a person did. */
  endedBy?: string;
  endedAtMs?: number;
}

/**
 * How the incident ended for the writer, and what gets the credit, as the record stores it; with
 * change → first commit, the one measure of "recovered after" on every surface.
 */
export type StoryRecovery = Recovery & { afterChangeMs: number };

/** Something a person wrote in the thread, kept for the postmortem's timeline. */
export interface StoryRemark {
  atMs: number;
  user: string;
  text: string;
}

export interface IncidentStory {
  incidentId: string;
  table: string;
  channel: string;
  rootTs?: string;
  /** The workflow, in words beside the colour: diagnosing, waiting for approval, verifying, resolved… */
  workflow: IncidentState;
  openedAtMs: number;
  closedAtMs?: number;

  health: CommitHealth;
  writer?: StoryWriter;
  /** The failing writer's newest good commit; "commits failing for …" counts from it. */
  lastGoodCommitMs?: number;
  /** Its first failure seen by the evidence (before the alert, usually). */
  firstFailureMs?: number;
  /**
   * How often the writer commits, when the evidence knows it (its checkpoint or commit interval, or
   * the cadence of its own snapshots; not a default guess), and the records its newest commit added.
   */
  cadence?: { intervalMs: number; recordsPerCommit?: number };
  /** Sources that did not answer: facts that depend on them are not claimed. */
  unseen: UnseenSource[];

  verdict?: { id: TriageId; summary: string };
  /** The cause that belongs to the verdict (a root-cause finding), when there is one. */
  cause?: { id: FindingId; summary: string };
  /** The evidence behind verdict and cause, as the report states it. */
  evidence: string[];

  /** The step in play, or the last one when the walk has ended. */
  step?: StoryStep;
  /** Every step tried or offered, oldest first (the current one last). */
  steps: StoryStep[];
  recovery?: StoryRecovery;
  /** Open items and risks; done ones keep who and when. */
  openItems: OpenItem[];

  /** Who is handling it: who said "I'm on it", or the first person who approved or acted. */
  owner?: { user: string; sinceMs: number; how: "claimed" | "acted" };
  remarks: StoryRemark[];

  alerts: { received: number; firing?: number; clearedAtMs?: number };
  /** Neither the catalog nor BOT_CONFIG knows the table. */
  tableUnknown?: boolean;
  /** The step the newest diagnosis names, before any walk proposed it. */
  nextStep?: { stepId: StepId; summary: string };
}
