// The walk record's one decision function: an event in, the next record and its effects out.
// It refuses buttons of an older proposal, runs the playbook machine, and keeps the record's
// bookkeeping (proposal ids, apply and revert counters, the writer, the recovery time). Pure:
// the services load the record, call decide, and save the result atomically.

import { transition } from "./machine.js";
import { proposalIdFor, type WalkRecord } from "./record.js";
import type { Effect, MachineContext, WalkEvent, WalkState } from "./walk.js";

export interface DecideContext extends MachineContext {
  /** The proposal the button belonged to; older proposals are refused as out of date. */
  proposalId?: string;
  /** The writer a follow-up check identified. */
  writer?: WalkRecord["writer"];
  /** When the writer's first snapshot after the change landed, if a check saw one. */
  recoveredAtMs?: number;
}

export interface Decision {
  record: WalkRecord;
  effects: Effect[];
}

export function decide(record: WalkRecord, event: WalkEvent, now: number, ctx: DecideContext): Decision {
  const result =
    staleProposal(record, event, ctx.proposalId, now) ?? transition(record.walk, event, now, ctx);
  const next = bookkeep(record, result.state, result.effects, now, ctx.writer);
  const resolved = result.effects.some((e) => e.type === "resolve-incident");
  if (resolved && ctx.recoveredAtMs !== undefined) next.recoveredAtMs = ctx.recoveredAtMs;
  return { record: next, effects: result.effects };
}

/** Buttons of an older proposal of the same step are refused, so an old message cannot approve. */
export function staleProposal(
  record: WalkRecord,
  event: WalkEvent,
  proposalId: string | undefined,
  now: number,
): { state: WalkState; effects: Effect[] } | undefined {
  if (proposalId === undefined || !("stepId" in event) || !("user" in event)) return undefined;
  const live = proposalIdFor(record, event.stepId);
  if (live === undefined || live === proposalId) return undefined;
  return {
    state: record.walk,
    effects: [
      { type: "post-ephemeral", user: event.user, notice: { kind: "stale-proposal" } },
      {
        type: "audit",
        entry: {
          atMs: now,
          table: record.table,
          actor: event.user,
          action: event.type,
          stepId: event.stepId,
          outcome: "ignored",
          detail: "ignored: stale-proposal",
        },
      },
    ],
  };
}

/** Records what the effects imply for the stored record: new proposal ids, apply and revert counters. */
function bookkeep(
  record: WalkRecord,
  walk: WalkState,
  effects: readonly Effect[],
  now: number,
  writer: WalkRecord["writer"] | undefined,
): WalkRecord {
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
