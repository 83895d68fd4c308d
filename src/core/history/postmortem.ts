// The postmortem of a closed incident as data: the timeline (alert fired, first diagnosis, each
// proposal, approval, change and the recovery), the three durations people ask about, the cause
// with its evidence, the fix, what did not help and what remains open, and the pictures that go
// with it. Renderers own the words (adapters/render/postmortem-markdown.ts).

import type { FindingId, StepId } from "../ids.js";
import type { WalkRecord } from "../playbook/record.js";
import type { StepRun } from "../playbook/walk.js";
import type { Change, Report } from "../report/schema.js";
import type { IncidentHistory } from "./record.js";

export type PostmortemEvent =
  | { kind: "alert-fired"; atMs: number }
  | { kind: "diagnosis"; atMs: number; verdict: string }
  | { kind: "proposal"; atMs: number; stepId: StepId }
  | { kind: "approval"; atMs: number; stepId: StepId; by: string }
  | { kind: "skipped"; atMs: number; stepId: StepId; by?: string }
  | { kind: "change"; atMs: number; stepId: StepId; by?: string; byHand: boolean }
  | { kind: "did-not-help"; atMs: number; stepId: StepId }
  | { kind: "recovery"; atMs: number; stepId: StepId };

export interface PostmortemPicture {
  /** File name, as shared in the thread and written to disk. */
  name: string;
  title: string;
  /** What the picture shows, in one sentence (its alt text). */
  altText: string;
  /** The name it was shared under in the thread (the outbox's), to find the shared file by. */
  ref?: string;
}

export interface Postmortem {
  incidentId: string;
  table: string;
  state: "resolved" | "stopped";
  openedAtMs: number;
  closedAtMs: number;
  /** In time order; entries at the same moment keep the order they happened in. */
  timeline: PostmortemEvent[];
  /** Alert fired → first diagnosis; first diagnosis → the fixing step approved (or done by hand); alert fired → recovery. */
  durations: { toDiagnoseMs?: number; toDecideMs?: number; toRecoverMs?: number };
  cause: {
    verdict: string;
    triage?: { id: FindingId; summary: string };
    rootCause?: { id: FindingId; summary: string };
    /** The evidence behind them, as the report states it. */
    evidence: string[];
    /** The exception, quoted from the root of its chain. */
    exception?: string;
  };
  fix?: { stepId: StepId; change?: Change; recoveredAfterMs?: number };
  notHelped: StepId[];
  open: string[];
  pictures: PostmortemPicture[];
}

const MAX_EVIDENCE = 8;

function runsOf(walk: WalkRecord | undefined): StepRun[] {
  if (!walk) return [];
  return [...walk.walk.history, ...(walk.walk.current ? [walk.walk.current] : [])];
}

export interface PostmortemInput {
  history: IncidentHistory;
  /** The first diagnosis. */
  report?: Report;
  walk?: WalkRecord;
  pictures?: PostmortemPicture[];
}

export function buildPostmortem(input: PostmortemInput): Postmortem {
  const { history, report, walk } = input;
  const events: PostmortemEvent[] = [{ kind: "alert-fired", atMs: history.openedAtMs }];
  const diagnosedAt = history.diagnosedAtMs;
  if (diagnosedAt !== undefined)
    events.push({ kind: "diagnosis", atMs: diagnosedAt, verdict: history.verdict });
  const runs = runsOf(walk);
  for (const step of history.steps) {
    events.push({ kind: "proposal", atMs: step.proposedAtMs, stepId: step.stepId });
    const run = runs.find((r) => r.stepId === step.stepId && r.proposedAtMs === step.proposedAtMs);
    for (const approval of run?.approvals ?? [])
      events.push({ kind: "approval", atMs: approval.atMs, stepId: step.stepId, by: approval.user });
    if (step.skippedAtMs !== undefined)
      events.push({
        kind: "skipped",
        atMs: step.skippedAtMs,
        stepId: step.stepId,
        ...(step.skippedBy ? { by: step.skippedBy } : {}),
      });
    if (step.appliedAtMs !== undefined)
      events.push({
        kind: "change",
        atMs: step.appliedAtMs,
        stepId: step.stepId,
        ...(step.appliedBy ? { by: step.appliedBy } : {}),
        byHand: step.appliedBy !== undefined && step.appliedBy !== "bot",
      });
    if (step.outcome === "did-not-help" && run?.endedAtMs !== undefined)
      events.push({ kind: "did-not-help", atMs: run.endedAtMs, stepId: step.stepId });
    if (step.outcome === "fixed" && step.recoveredAtMs !== undefined)
      events.push({ kind: "recovery", atMs: step.recoveredAtMs, stepId: step.stepId });
  }
  // A stable sort: what happened at one moment keeps its order (a proposal before its approval).
  const timeline = events.map((e, i) => ({ e, i })).sort((a, b) => a.e.atMs - b.e.atMs || a.i - b.i);
  const fixed = history.steps.find((s) => s.outcome === "fixed");
  const decidedAt = fixed ? (fixed.approvedAtMs ?? fixed.appliedAtMs) : undefined;
  const fixRun = fixed
    ? runs.find((r) => r.stepId === fixed.stepId && r.proposedAtMs === fixed.proposedAtMs)
    : undefined;
  const triage = report?.findings.find((f) => f.id === history.triage);
  const rootCause = report?.findings.find((f) => f.id === history.rootCause);
  const evidence = [...(triage?.evidence ?? []), ...(rootCause?.evidence ?? [])]
    .map((e) => e.detail)
    .slice(0, MAX_EVIDENCE);
  const quote = triage?.quote;
  return {
    incidentId: history.incidentId,
    table: history.table,
    state: history.state,
    openedAtMs: history.openedAtMs,
    closedAtMs: history.closedAtMs,
    timeline: timeline.map(({ e }) => e),
    durations: {
      ...(diagnosedAt !== undefined ? { toDiagnoseMs: Math.max(0, diagnosedAt - history.openedAtMs) } : {}),
      ...(decidedAt !== undefined && diagnosedAt !== undefined
        ? { toDecideMs: Math.max(0, decidedAt - diagnosedAt) }
        : {}),
      ...(history.recoveredAtMs !== undefined
        ? { toRecoverMs: Math.max(0, history.recoveredAtMs - history.openedAtMs) }
        : {}),
    },
    cause: {
      verdict: history.verdict,
      ...(triage ? { triage: { id: triage.id, summary: triage.summary } } : {}),
      ...(rootCause ? { rootCause: { id: rootCause.id, summary: rootCause.summary } } : {}),
      evidence,
      ...(quote ? { exception: `${quote.exception}: ${quote.message}` } : {}),
    },
    ...(fixed
      ? {
          fix: {
            stepId: fixed.stepId,
            ...(fixRun ? { change: fixRun.change } : {}),
            ...(fixed.recoveredAfterMs !== undefined ? { recoveredAfterMs: fixed.recoveredAfterMs } : {}),
          },
        }
      : {}),
    notHelped: history.steps.filter((s) => s.outcome === "did-not-help").map((s) => s.stepId),
    open: history.openItems,
    pictures: input.pictures ?? [],
  };
}
