// The remediation record's one decision function: an event in, the next record and its effects out.
// It refuses buttons of an older proposal, runs the playbook machine, and keeps the record's
// bookkeeping (proposal ids, apply and revert counters, the writer, the recovery time). Pure:
// the services load the record, call decide, and save the result atomically.

import type { RecoveryCredit } from "../verification/check.js";
import { itemsResolvedBy, mergeOpenItems, type OpenItem, pendingItems } from "../verification/open-items.js";
import { changeTimeOf } from "../verification/recovery.js";
import { alreadyHandled } from "./events/shared.js";
import { transition } from "./machine.js";
import { proposalIdFor, type RemediationRecord } from "./record.js";
import type { Effect, MachineContext, RemediationEvent, TransitionResult, WalkState } from "./walk.js";

export interface DecideContext extends MachineContext {
  /** The proposal the button belonged to; older proposals are refused as out of date. */
  proposalId?: string;
  /** The writer the diagnosis named, or the one a follow-up check identified. */
  writer?: RemediationRecord["writer"];
  /** When the writer's first snapshot after the change landed, if a check saw one. */
  recoveredAtMs?: number;
  /** Whether the change earned that snapshot (core/verification/check.ts); "fixed" when absent. */
  credit?: RecoveryCredit;
  /** What the newest diagnosis leaves for a person to do. */
  openItems?: OpenItem[];
}

export type RecordEvent =
  | RemediationEvent
  /** Someone did what the report left open (removed the duplicate) and says so. */
  | { type: "item-done"; user: string };

export interface Decision {
  record: RemediationRecord;
  effects: Effect[];
}

export function decide(
  record: RemediationRecord,
  event: RecordEvent,
  now: number,
  ctx: DecideContext,
): Decision {
  if (event.type === "item-done") return markItemsDone(record, event, now, pendingItems(record.openItems));
  const result =
    staleProposal(record, event, ctx.proposalId, now) ?? transition(record.walk, event, now, ctx);
  let next = bookkeep(record, result.state, result.effects, now, ctx.writer);
  if (ctx.openItems) next.openItems = mergeOpenItems(record.openItems, ctx.openItems);
  // The step's work is the open item (removing the duplicate): one press of "Done by hand" says
  // both, so no surface keeps counting an item the person just said they did.
  if (event.type === "done-by-hand" && markedByHand(result.effects)) {
    const resolves = itemsResolvedBy(next.openItems, event.stepId);
    if (resolves.length > 0) {
      const marked = markItemsDone(next, event, now, resolves);
      next = marked.record;
      result.effects.push(...marked.effects);
    }
  }
  const resolved = result.effects.find((e) => e.type === "resolve-incident");
  if (resolved && ctx.recoveredAtMs !== undefined) {
    next.recoveredAtMs = ctx.recoveredAtMs;
    const run = next.walk.history.findLast((r) => r.stepId === resolved.stepId);
    if (run)
      next.recovery = {
        atMs: ctx.recoveredAtMs,
        changeAtMs: changeTimeOf(run),
        credit: ctx.credit ?? "fixed",
        stepId: run.stepId,
      };
  }
  return { record: next, effects: result.effects };
}

/** Whether the machine accepted a "Done by hand" press (not refused or out of date). */
function markedByHand(effects: readonly Effect[]): boolean {
  return effects.some(
    (e) => e.type === "audit" && e.entry.action === "done-by-hand" && e.entry.outcome === "ok",
  );
}

/** Marks `pending` (items still open) done by `user`; with none left, a press changes nothing. */
function markItemsDone(
  record: RemediationRecord,
  event: { user: string },
  now: number,
  pending: readonly OpenItem[],
): Decision {
  const entry = (outcome: "ok" | "ignored", detail: string): Effect => ({
    type: "audit",
    entry: { atMs: now, table: record.table, actor: event.user, action: "item-done", outcome, detail },
  });
  if (pending.length === 0) return { record, effects: [entry("ignored", "ignored: nothing left open")] };
  const marking = new Set(pending.map((i) => i.id));
  const openItems = (record.openItems ?? []).map((i) =>
    marking.has(i.id) ? { ...i, doneBy: event.user, doneAtMs: now } : i,
  );
  return {
    record: { ...record, openItems },
    effects: [entry("ok", `marked done: ${pending.map((i) => i.text).join("; ")}`)],
  };
}

/** Buttons of an older proposal of the same step are refused, so an old message cannot approve. */
function staleProposal(
  record: RemediationRecord,
  event: RecordEvent,
  proposalId: string | undefined,
  now: number,
): TransitionResult | undefined {
  if (proposalId === undefined || !("stepId" in event) || !("user" in event)) return undefined;
  const live = proposalIdFor(record, event.stepId);
  if (live === undefined || live === proposalId) return undefined;
  return alreadyHandled(record.walk, now, event, event.user, { kind: "stale-proposal" });
}

/** Records what the effects imply for the stored record: new proposal ids, apply and revert counters. */
function bookkeep(
  record: RemediationRecord,
  walk: WalkState,
  effects: readonly Effect[],
  now: number,
  writer: RemediationRecord["writer"] | undefined,
): RemediationRecord {
  const proposals = [...record.proposals];
  let { applySeq, revertSeq } = record;
  for (const effect of effects) {
    if (effect.type === "post-proposal")
      proposals.push({ id: `p${proposals.length + 1}`, stepId: effect.stepId, atMs: now });
    if (effect.type === "apply-change") applySeq++;
    if (effect.type === "revert-change") revertSeq++;
  }
  return { ...record, walk, proposals, applySeq, revertSeq, ...(writer ? { writer } : {}) };
}
