// Dispatches walk events: load the walk record, decide (core), save it with a compare-and-set,
// then carry out the effects. Also answers who may approve (user groups through the approver
// directory) and which playbook, step and follow-up pacing apply to a table.

import { type ApprovalPolicy, policyFor } from "../../core/approval/policy.js";
import type { StepId } from "../../core/ids.js";
import { decide, type RecordEvent } from "../../core/playbook/decide.js";
import type { WalkRecord } from "../../core/playbook/record.js";
import type { Playbook, Step } from "../../core/playbook/schema.js";
import type { Effect, FollowUpSettings, MachineContext } from "../../core/playbook/walk.js";
import { tableSettings } from "../../core/settings.js";
import { asCodedError, CodedError, ErrorCode } from "../../errors.js";
import type { ActionValue } from "../view-models.js";
import type { RemediationDeps } from "./deps.js";
import { type ExecuteExtra, RemediationEffects } from "./effects.js";

export interface DispatchOptions extends ExecuteExtra {
  /** The proposal the button belonged to; older proposals are refused as out of date. */
  proposalId?: string;
  /** Builds or resets the record before the event (first proposal of an incident). */
  init?: (current: WalkRecord | undefined) => WalkRecord | undefined;
  writer?: WalkRecord["writer"];
  /** What the diagnosis leaves for a person to do once the writer recovers. */
  openItems?: WalkRecord["openItems"];
  /** The table, when no walk is stored yet. */
  table?: string;
}

export class WalkDispatcher {
  readonly effects: RemediationEffects;

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
    for (const id of approvers.filter((a) => a.startsWith("S")))
      members[id] = await this.deps.approvers.groupMembers(id);
    return policyFor(this.deps.bot, table, members);
  }

  async dispatch(
    incidentId: string,
    event: RecordEvent,
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
      const { record, effects } = decide(base, event, now, {
        ...ctx,
        ...(opts.proposalId !== undefined ? { proposalId: opts.proposalId } : {}),
        ...(opts.writer ? { writer: opts.writer } : {}),
        ...(opts.openItems ? { openItems: opts.openItems } : {}),
        ...(opts.recovery?.firstNewSnapshot
          ? { recoveredAtMs: opts.recovery.firstNewSnapshot.timestampMs }
          : {}),
      });
      // What the decision says in Slack is built now, so the store can save it with the record.
      return {
        record,
        result: effects,
        messages: this.effects.messages(record, effects, opts, policy.approvers),
      };
    });
    if (!outcome.changed || !outcome.record) {
      if (!outcome.record && "user" in event)
        await this.noProposal({ incidentId } as ActionValue, event.user);
      return { changed: false, ...(outcome.record ? { record: outcome.record } : {}) };
    }
    await this.effects.execute(outcome.record, outcome.result ?? [], {
      ...opts,
      messagesRecorded: outcome.messagesRecorded === true,
    });
    // If an earlier process died between recording and queueing, the missing job is added now.
    await this.effects.ensurePending(outcome.record);
    return { record: outcome.record, changed: true };
  }

  async noProposal(value: Pick<ActionValue, "incidentId">, user: string): Promise<void> {
    const incident = await this.deps.store.get(value.incidentId);
    if (!incident) return;
    await this.deps.notifier
      .postEphemeral({ incidentId: incident.id, channel: incident.channel }, user, { kind: "no-walk" })
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
}
