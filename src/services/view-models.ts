// View models: what the services hand to the notifier and the renderers. They carry plain facts
// (ids, times as epoch milliseconds, the report) and no Slack formatting; the renderers own every word.

import type { IncidentHistory } from "../core/history/record.js";
import type { StepId } from "../core/ids.js";
import type { RemediationRecord } from "../core/remediation/record.js";
import type { Change, NextStep } from "../core/report/schema.js";
import type { StoryDecision } from "../core/story/model.js";

/** Carried by every playbook button and by the apply modal's private_metadata, as compact JSON. */
export type ActionValue = StoryDecision["action"];

export type RiskLevel = "low" | "medium" | "high";

/** What happened to a proposal; once set, the proposal message shows it instead of buttons. */
export interface ProposalDecision {
  kind: "applying" | "applied" | "done-by-hand" | "skipped" | "stopped" | "reverted";
  /** Slack user id of the person who pressed the button. */
  by: string;
  atMs: number;
  reason?: string;
  /** Every approver, in order, with their reasons, when more than one approved (a risky step). */
  approvers?: Array<{ by: string; atMs: number; reason?: string }>;
}

export interface ProposalView {
  incidentId: string;
  proposalId: string;
  table: string;
  /** The step as the report names it: id, summary, change, automatic. */
  step: NextStep;
  /** Position in the walk, shown as "step 1". */
  index?: number;
  /** Why this step and not another. */
  why: string;
  risk: { level: RiskLevel; detail: string };
  verification: { checks: number; intervalSeconds: number; signal?: string };
  /** Who may approve: Slack user ids (U…) or user group ids (S…). */
  approvers?: string[];
  decision?: ProposalDecision;
  /** What this step did in the table's earlier incident with the same cause. */
  earlier?: { outcome: "fixed" | "did-not-help"; incidentId: string };
}

export interface ApplyModalView {
  incidentId: string;
  proposalId: string;
  stepId: StepId;
  table: string;
  title: string;
  change: Change;
  /** When true the modal adds a required checkbox confirming the change is correct for the table. */
  risky: boolean;
  /** The step's risk, as the proposal states it. */
  risk?: ProposalView["risk"];
  /** Which approval this form gives ("2 of 2") and the ones given before it, with their reasons. */
  approval?: { index: number; of: number; earlier: Array<{ by: string; reason?: string }> };
}

/** The writer whose commits we wait for; a Flink job's name tells twins apart with their short id. */
export type WriterRef = Pick<NonNullable<RemediationRecord["writer"]>, "kind" | "id" | "name">;

export type VerificationOutcome =
  | {
      kind: "recovered";
      snapshotId: string;
      committedAtMs: number;
      /** From the change to the first new snapshot (core/verification/recovery.ts). */
      recoveredAfterMs: number;
      /** "already-flowing": the writer was committing before the change; it gets no credit. Absent: fixed. */
      credit?: "fixed" | "already-flowing";
    }
  /** The last check could not read what it needed: nothing is offered that changes anything. */
  | { kind: "could-not-check" }
  | {
      kind: "ineffective";
      /** Offer Revert when the applied change can be undone. */
      revertable: boolean;
      nextStep?: { stepId: StepId; title: string };
    };

export interface VerificationView {
  incidentId: string;
  proposalId: string;
  stepId: StepId;
  table: string;
  writer: WriterRef;
  check: { index: number; total: number };
  /** A read-only check: it only looked, so its end is "checked", never "no recovery". */
  readOnly?: boolean;
  /** What the report leaves for a person once commits resume (a duplicate to remove). */
  openItems?: Array<{ text: string; statement?: string }>;
  /** The unknown commit landed and was committed again: a duplicate was found (removed or not). */
  landedTwice?: boolean;
  intervalSeconds?: number;
  /** When commits are counted from: the change, or for one done by hand, its proposal. */
  countsFrom?: { atMs: number; byHand: boolean };
  /** What the latest check saw. */
  latest?: {
    /** What it could not read, with each source's error; then it says nothing of the writer. */
    unseen?: Array<{ source: string; reason: string }>;
    newSnapshotId?: string | null;
    elapsedSecondsSinceLastSuccessfulCommit?: number;
    trend?: "rising" | "falling" | "steady";
    connectorState?: string;
  };
  outcome?: VerificationOutcome;
}

export interface DiagnosisOptions {
  /** Evidence lines shown before "… and N more" (default 8). */
  maxEvidence?: number;
  /**
   * Where the whole report can be found again ("<incident id>|<n>"): when evidence is cut, a
   * "Show all evidence" button carries it and opens the full list in a modal.
   */
  evidenceRef?: string;
}

export interface HistoryEntry {
  atMs: number;
  /** Slack user id (U…) or "bot". */
  actor: string;
  /** e.g. "proposed", "approved", "applied", "skipped", "stopped", "reverted", "resolved". */
  action: string;
  stepId?: StepId;
  /** Free text such as the approval reason; escaped when rendered. */
  detail?: string;
}

export interface HistoryView {
  table: string;
  entries: HistoryEntry[];
  /** Past incidents within the retention window. */
  incidents?: IncidentHistory[];
}

export type UsageErrorView =
  | { kind: "unknown-table"; input: string; suggestion?: string; command: string }
  | { kind: "missing-table"; command: string }
  | { kind: "unknown-command"; input: string; suggestion?: string }
  | { kind: "not-permitted"; action: string; approvers: string[] }
  | { kind: "busy"; table: string; detail: string }
  | { kind: "failed"; message: string; hint?: string }
  | {
      kind: "rate-limited";
      limited: "person" | "table";
      table?: string;
      limit: number;
      windowSeconds: number;
      /** When to try again (epoch ms), and the same said relatively ("in 40 s") as the fallback. */
      retryAt: number;
      retryIn: string;
    };
