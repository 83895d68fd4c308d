// The heart of guided remediation: one machine event at a time, applied to the stored walk with a
// compare-and-set, then its effects carried out. Also answers who may approve (user groups looked
// up in Slack) and which playbook, step and follow-up pacing apply to a table.

import type { ActionValue } from "../adapters/slack/render/view-models.js";
import type { WalkRecord } from "../adapters/store/walk-store.js";
import { tableSettings } from "../config.js";
import { type ApprovalPolicy, policyFor } from "../core/approval/policy.js";
import type { StepId } from "../core/ids.js";
import { transition } from "../core/playbook/machine.js";
import type { Playbook, Step } from "../core/playbook/schema.js";
import type {
  Effect,
  FollowUpSettings,
  MachineContext,
  WalkEvent,
  WalkState,
} from "../core/playbook/walk.js";
import { asCodedError, CodedError, ErrorCode } from "../errors.js";
import type { RemediationDeps } from "./remediation-deps.js";
import { type ExecuteExtra, RemediationEffects } from "./remediation-effects.js";
import { proposalIdFor } from "./remediation-views.js";

export interface DispatchOptions extends ExecuteExtra {
  /** The proposal the button belonged to; older proposals are refused as out of date. */
  proposalId?: string;
  /** Builds or resets the record before the event (first proposal of an incident). */
  init?: (current: WalkRecord | undefined) => WalkRecord | undefined;
  writer?: WalkRecord["writer"];
  /** The table, when no walk is stored yet. */
  table?: string;
}

const GROUP_CACHE_MS = 60_000;

export class WalkDispatcher {
  readonly effects: RemediationEffects;
  private readonly groupCache = new Map<string, { atMs: number; users: string[] }>();

  constructor(
    private readonly deps: RemediationDeps,
    /** Proposes a step built afresh from the table as it is now. */
    readonly proposeNext: (incidentId: string, stepId: StepId, actor?: string) => Promise<void>,
  ) {
    this.effects = new RemediationEffects(deps, {
      policy: (table) => this.policy(table),
      step: (playbookId, stepId) => this.step(playbookId, stepId),
      proposeNext,
    });
  }

  /** Who may approve changes to a table, with user group members looked up in Slack. */
  async policy(table: string): Promise<ApprovalPolicy> {
    const approvers = tableSettings(this.deps.bot, table).approvers;
    const members: Record<string, string[]> = {};
    for (const id of approvers.filter((a) => a.startsWith("S"))) members[id] = await this.groupMembers(id);
    return policyFor(this.deps.bot, table, members);
  }

  async dispatch(
    incidentId: string,
    event: WalkEvent,
    opts: DispatchOptions,
  ): Promise<{ record?: WalkRecord; changed: boolean }> {
    const existing = (await this.deps.walks.get(incidentId))?.value;
    const table = existing?.table ?? opts.table;
    if (!table) return { changed: false };
    const policy = await this.policy(table);
    const followUp = this.followUp(table);
    const now = this.deps.now();
    const outcome = await this.deps.walks.mutate<Effect[]>(incidentId, (current) => {
      const base = opts.init ? opts.init(current) : current;
      if (!base) return undefined;
      const ctx: MachineContext = {
        playbook: this.playbookFor(base.walk.playbookId, "stepId" in event ? event.stepId : undefined),
        policy,
        followUp,
      };
      const result =
        staleProposal(base, event, opts.proposalId, now) ?? transition(base.walk, event, now, ctx);
      const record = bookkeep(base, result.state, result.effects, now, opts.writer);
      const resolved = result.effects.some((e) => e.type === "resolve-incident");
      const snapshotAt = opts.recovery?.firstNewSnapshot?.timestampMs;
      if (resolved && snapshotAt !== undefined) record.recoveredAtMs = snapshotAt;
      return { record, result: result.effects };
    });
    if (!outcome.changed || !outcome.record) {
      if (!outcome.record && "user" in event)
        await this.noProposal({ incidentId } as ActionValue, event.user);
      return { changed: false, ...(outcome.record ? { record: outcome.record } : {}) };
    }
    await this.effects.execute(outcome.record, outcome.result ?? [], opts);
    // If an earlier process died between recording and queueing, the missing job is added now.
    await this.effects.ensurePending(outcome.record);
    return { record: outcome.record, changed: true };
  }

  async noProposal(value: Pick<ActionValue, "incidentId">, user: string): Promise<void> {
    const incident = await this.deps.store.get(value.incidentId);
    if (!incident) return;
    await this.deps.slack.chat
      .postEphemeral({
        channel: incident.channel,
        user,
        text: "There is no open proposal for this incident any more; run /iceberg status to see where things stand.",
      })
      .catch((error: unknown) =>
        this.deps.log.warn({ err: asCodedError(error).message }, "ephemeral failed"),
      );
  }

  async context(record: WalkRecord): Promise<MachineContext> {
    return {
      playbook: this.playbookFor(record.walk.playbookId, record.walk.current?.stepId),
      policy: await this.policy(record.table),
      followUp: this.followUp(record.table),
    };
  }

  private followUp(table: string): FollowUpSettings {
    const settings = tableSettings(this.deps.bot, table).followUp;
    const intervalSeconds =
      this.deps.followUpIntervalMs === undefined
        ? settings.intervalSeconds
        : this.deps.followUpIntervalMs / 1000;
    return { intervalSeconds, checks: this.deps.followUpChecks ?? settings.checks };
  }

  playbookFor(playbookId: string, stepId?: string): Playbook {
    const set = this.deps.playbooks.playbooks;
    const found =
      set.find((p) => p.id === playbookId) ?? set.find((p) => p.steps.some((s) => s.id === stepId));
    if (!found) {
      throw new CodedError(ErrorCode.PlaybookInvalid, `No playbook ${playbookId} is loaded`, {
        hint: "Check the playbooks directory the bot was started with (iceberg-bot playbooks lint).",
      });
    }
    return found;
  }

  step(playbookId: string, stepId: string): Step | undefined {
    return this.playbookFor(playbookId, stepId).steps.find((s) => s.id === stepId);
  }

  private async groupMembers(groupId: string): Promise<string[]> {
    const cached = this.groupCache.get(groupId);
    const now = Date.now();
    if (cached && now - cached.atMs < GROUP_CACHE_MS) return cached.users;
    try {
      const result = await this.deps.slack.usergroups.users.list({ usergroup: groupId });
      const users = result.users ?? [];
      this.groupCache.set(groupId, { atMs: now, users });
      return users;
    } catch (error) {
      // Fail closed: an unreadable group approves nobody, and the refusal names the group.
      this.deps.log.warn(
        { group: groupId, err: asCodedError(error).message },
        "usergroups.users.list failed",
      );
      return cached?.users ?? [];
    }
  }
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
  const text = "This proposal is out of date; use the latest one in the thread.";
  return {
    state: record.walk,
    effects: [
      { type: "post-ephemeral", user: event.user, text },
      {
        type: "audit",
        entry: {
          atMs: now,
          table: record.table,
          actor: event.user,
          action: event.type,
          stepId: event.stepId,
          outcome: "ignored",
          detail: text,
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
