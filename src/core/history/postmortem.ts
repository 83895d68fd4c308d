// The postmortem of a closed incident as data, a rendering of the incident's story: the timeline
// from the writer's last good commit and first failure (before the alert) to its recovery, with
// what people said in the thread; the impact (how long no data landed); the cause with its
// evidence; what was tried and what fixed it; what remains open; and who handled it. The step
// events come from the history record the resolution wrote (the same steps the next incident is
// matched on); every other fact is the story's. Renderers own the words
// (adapters/render/postmortem-markdown.ts).

import type { FindingId, StepId } from "../ids.js";
import type { Change } from "../report/schema.js";
import type { IncidentStory, StoryWriter } from "../story/model.js";
import type { OpenItem } from "../verification/open-items.js";
import { madeByHand } from "../verification/recovery.js";
import type { IncidentHistory } from "./record.js";

export type PostmortemEvent =
  | { kind: "last-good-commit"; atMs: number }
  | { kind: "first-failure"; atMs: number }
  | { kind: "alert-fired"; atMs: number }
  | { kind: "diagnosis"; atMs: number; verdict: string }
  | { kind: "claimed"; atMs: number; by: string }
  | { kind: "proposal"; atMs: number; stepId: StepId }
  | { kind: "approval"; atMs: number; stepId: StepId; by: string }
  | { kind: "skipped"; atMs: number; stepId: StepId; by?: string }
  | { kind: "change"; atMs: number; stepId: StepId; by?: string; byHand: boolean }
  | { kind: "did-not-help"; atMs: number; stepId: StepId }
  /** flowing: the writer was committing all along; its next commit is told, not a resumption. */
  | { kind: "recovery"; atMs: number; stepId?: StepId; flowing?: boolean }
  | { kind: "remark"; atMs: number; by: string; text: string }
  | { kind: "item-done"; atMs: number; by: string; text: string };

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
  state: IncidentHistory["state"];
  openedAtMs: number;
  closedAtMs: number;
  writer?: StoryWriter;
  /** In time order; entries at the same moment keep the order they happened in. */
  timeline: PostmortemEvent[];
  /**
   * How long no data of the writer landed: from its last good commit (or its first failure when
   * that commit is not known) to its first commit after recovery, or to the close.
   */
  impact: {
    fromMs?: number;
    toMs?: number;
    noDataMs?: number;
    recovered: boolean;
    /**
     * The commits the writer's cadence expected in that gap and that did not land, with the records
     * they would have carried (its newest commit's added-records); absent when the evidence does
     * not know its cadence: the document says "unknown" then.
     */
    missed?: { commits: number; everyMs: number; records?: number };
  };
  /** The writer was committing all along (an unknown commit landed twice): no outage to count. */
  flowing?: boolean;
  /**
   * First failure (or last good commit) → alert; alert → first diagnosis; first diagnosis → the
   * fixing step approved (or done by hand); the writer's last good commit → its first commit again.
   */
  durations: { toDetectMs?: number; toDiagnoseMs?: number; toDecideMs?: number; toRecoverMs?: number };
  cause: {
    verdict: string;
    triage?: { id: FindingId; summary: string };
    rootCause?: { id: FindingId; summary: string };
    /** The evidence behind them, as the report states it. */
    evidence: string[];
  };
  fix?: { stepId: StepId; change?: Change; recoveredAfterMs?: number; byHand?: boolean };
  notHelped: StepId[];
  /** Every open item and risk, done ones with who and when. */
  open: OpenItem[];
  owner?: IncidentHistory["owner"];
  pictures: PostmortemPicture[];
}

const MAX_EVIDENCE = 8;

export interface PostmortemInput {
  story: IncidentStory;
  /** The closed incident's record: its steps and when each thing was done. */
  history: IncidentHistory;
  pictures?: PostmortemPicture[];
}

function stepEvents(history: IncidentHistory): PostmortemEvent[] {
  const events: PostmortemEvent[] = [];
  for (const step of history.steps) {
    events.push({ kind: "proposal", atMs: step.proposedAtMs, stepId: step.stepId });
    const approvals =
      step.approvals ??
      (step.approvedAtMs !== undefined
        ? step.approvedBy.map((user) => ({ user, atMs: step.approvedAtMs! }))
        : []);
    for (const approval of approvals)
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
        byHand: madeByHand(step),
      });
    if (step.outcome === "did-not-help" && step.endedAtMs !== undefined)
      events.push({ kind: "did-not-help", atMs: step.endedAtMs, stepId: step.stepId });
  }
  return events;
}

/**
 * Commits expected in the gap and not made: the writer's commit slots after its last good commit,
 * up to (not including) its first commit again, or up to the close when it never came back.
 */
function missedCommits(
  gap: { fromMs: number; toMs: number; recovered: boolean },
  cadence: IncidentStory["cadence"],
): Postmortem["impact"]["missed"] {
  if (!cadence) return undefined;
  const slots = (gap.toMs - gap.fromMs) / cadence.intervalMs;
  const commits = Math.max(0, gap.recovered ? Math.ceil(slots) - 1 : Math.floor(slots));
  return {
    commits,
    everyMs: cadence.intervalMs,
    ...(cadence.recordsPerCommit !== undefined ? { records: commits * cadence.recordsPerCommit } : {}),
  };
}

export function buildPostmortem(input: PostmortemInput): Postmortem {
  const { story, history } = input;
  const events: PostmortemEvent[] = [];
  if (story.lastGoodCommitMs !== undefined)
    events.push({ kind: "last-good-commit", atMs: story.lastGoodCommitMs });
  if (story.firstFailureMs !== undefined) events.push({ kind: "first-failure", atMs: story.firstFailureMs });
  events.push({ kind: "alert-fired", atMs: story.openedAtMs });
  const diagnosedAt = history.diagnosedAtMs;
  if (diagnosedAt !== undefined)
    events.push({ kind: "diagnosis", atMs: diagnosedAt, verdict: history.verdict });
  if (story.owner?.how === "claimed")
    events.push({ kind: "claimed", atMs: story.owner.sinceMs, by: story.owner.user });
  events.push(...stepEvents(history));
  const recovery = story.recovery;
  if (recovery)
    events.push({
      kind: "recovery",
      atMs: recovery.atMs,
      ...(recovery.stepId ? { stepId: recovery.stepId } : {}),
      ...(recovery.credit === "already-flowing" ? { flowing: true } : {}),
    });
  for (const remark of story.remarks)
    events.push({ kind: "remark", atMs: remark.atMs, by: remark.user, text: remark.text });
  for (const item of story.openItems)
    if (item.doneBy !== undefined && item.doneAtMs !== undefined)
      events.push({ kind: "item-done", atMs: item.doneAtMs, by: item.doneBy, text: item.text });
  // A stable sort: what happened at one moment keeps its order (a proposal before its approval).
  const timeline = events.map((e, i) => ({ e, i })).sort((a, b) => a.e.atMs - b.e.atMs || a.i - b.i);

  const closedAtMs = story.closedAtMs ?? history.closedAtMs;
  const flowing = recovery?.credit === "already-flowing";
  // A writer that kept committing had no gap to count.
  const since = flowing ? undefined : (story.lastGoodCommitMs ?? story.firstFailureMs);
  const until = recovery?.atMs ?? closedAtMs;
  const fixedStep =
    recovery?.credit === "fixed" ? story.steps.find((s) => s.stepId === recovery.stepId) : undefined;
  const fixed = history.steps.find((s) => s.outcome === "fixed");
  const decidedAt = fixed ? (fixed.approvedAtMs ?? fixed.appliedAtMs) : undefined;
  const failingSince = story.firstFailureMs ?? story.lastGoodCommitMs;
  const triage = story.verdict && story.verdict.id !== "healthy" ? story.verdict : undefined;
  return {
    incidentId: story.incidentId,
    table: story.table,
    state: history.state,
    openedAtMs: story.openedAtMs,
    closedAtMs,
    ...(story.writer ? { writer: story.writer } : {}),
    timeline: timeline.map(({ e }) => e),
    impact: {
      ...(since !== undefined ? { fromMs: since, toMs: until, noDataMs: Math.max(0, until - since) } : {}),
      recovered: recovery !== undefined,
      ...(since !== undefined && story.lastGoodCommitMs !== undefined
        ? {
            missed: missedCommits(
              { fromMs: story.lastGoodCommitMs, toMs: until, recovered: recovery !== undefined },
              story.cadence,
            ),
          }
        : {}),
    },
    ...(flowing ? { flowing: true } : {}),
    durations: {
      ...(failingSince !== undefined && failingSince <= story.openedAtMs
        ? { toDetectMs: story.openedAtMs - failingSince }
        : {}),
      ...(diagnosedAt !== undefined ? { toDiagnoseMs: Math.max(0, diagnosedAt - story.openedAtMs) } : {}),
      ...(decidedAt !== undefined && diagnosedAt !== undefined
        ? { toDecideMs: Math.max(0, decidedAt - diagnosedAt) }
        : {}),
      ...(recovery ? { toRecoverMs: Math.max(0, recovery.atMs - (since ?? story.openedAtMs)) } : {}),
    },
    cause: {
      verdict: story.verdict?.id ?? history.verdict,
      ...(triage ? { triage } : {}),
      ...(story.cause ? { rootCause: story.cause } : {}),
      evidence: story.evidence.slice(0, MAX_EVIDENCE),
    },
    ...(recovery?.stepId && recovery.credit === "fixed"
      ? {
          fix: {
            stepId: recovery.stepId,
            ...(fixedStep ? { change: fixedStep.change } : {}),
            ...(recovery.afterChangeMs !== undefined ? { recoveredAfterMs: recovery.afterChangeMs } : {}),
            ...(fixedStep?.byHand ? { byHand: true } : {}),
          },
        }
      : {}),
    notHelped: history.steps.filter((s) => s.outcome === "did-not-help").map((s) => s.stepId),
    open: story.openItems,
    ...(story.owner ? { owner: { user: story.owner.user, how: story.owner.how } } : {}),
    pictures: input.pictures ?? [],
  };
}
