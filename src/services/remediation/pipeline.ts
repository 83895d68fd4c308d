// The remediation pipeline, the one way a walk changes: load → decide (core) → save with a
// compare-and-set (its Slack messages saved with it) → perform the effects. It returns the decision's
// effects and calls nothing back: what a caller does next (propose the step a skip moved on to)
// is the caller's to read from them.

import { type Decision, decide, type RecordEvent } from "../../core/playbook/decide.js";
import type { WalkRecord } from "../../core/playbook/record.js";
import type { Effect, MachineContext } from "../../core/playbook/walk.js";
import { recoveryOf } from "../../core/story/recovery.js";
import { walkStory } from "../../core/story/steps.js";
import { asCodedError } from "../../errors.js";
import type { ActionValue } from "../view-models.js";
import type { RemediationDeps } from "./deps.js";
import type { ExecuteExtra, RemediationEffects } from "./effects.js";
import type { RemediationSettings } from "./settings.js";

export interface PipelineOptions extends ExecuteExtra {
  /** The proposal the button belonged to; older proposals are refused as out of date. */
  proposalId?: string;
  /** Builds or resets the record before the event (first proposal of an incident). */
  init?: (current: WalkRecord | undefined) => WalkRecord | undefined;
  writer?: WalkRecord["writer"];
  /** What the diagnosis leaves for a person to do once the writer recovers. */
  openItems?: WalkRecord["openItems"];
  /** The table, when no walk is stored yet. */
  table?: string;
  /** The autopilot policy actor this decision is made under (services/autopilot). */
  grant?: string;
}

export interface PipelineResult {
  record?: WalkRecord;
  changed: boolean;
  /** What the decision asked for (empty when nothing was saved). */
  effects: readonly Effect[];
}

export class Pipeline {
  constructor(
    private readonly deps: RemediationDeps,
    private readonly settings: RemediationSettings,
    private readonly effects: RemediationEffects,
  ) {}

  async run(incidentId: string, event: RecordEvent, opts: PipelineOptions): Promise<PipelineResult> {
    // 1. Load: the table's settings the decision is made against.
    const existing = (await this.deps.walks.get(incidentId))?.value;
    const table = existing?.table ?? opts.table;
    if (!table) return { changed: false, effects: [] };
    const policy = {
      ...(await this.settings.policy(table)),
      ...(opts.grant !== undefined ? { autopilot: opts.grant } : {}),
    };
    const followUp = this.settings.followUp(table);
    const now = this.deps.now();
    // 2–3. Decide on the record as stored and save it with a compare-and-set, the decision's
    // Slack messages with it (a lost race decides again on the newer record).
    const outcome = await this.deps.walks.mutate<Effect[]>(incidentId, (current) => {
      const base = opts.init ? opts.init(current) : current;
      if (!base) return undefined;
      const { record, effects } = this.decide(base, event, now, { policy, followUp }, opts);
      // The card follows the thread in the same delivery whenever the walk's story moved.
      const messages = this.effects.messages(record, effects, opts, policy.approvers);
      return {
        record,
        result: effects,
        messages: storyMoved(current, record) ? [...messages, { kind: "card" as const }] : messages,
      };
    });
    if (!outcome.changed || !outcome.record) {
      if (!outcome.record && "user" in event)
        await this.noProposal({ incidentId } as ActionValue, event.user);
      return { changed: false, effects: [], ...(outcome.record ? { record: outcome.record } : {}) };
    }
    // 4. Perform: carry out what the saved decision asked for.
    const effects = outcome.result ?? [];
    await this.effects.execute(outcome.record, effects, {
      ...opts,
      messagesRecorded: outcome.messagesRecorded === true,
    });
    // If an earlier process died between recording and queueing, the missing job is added now.
    await this.effects.ensurePending(outcome.record);
    return { record: outcome.record, changed: true, effects };
  }

  private decide(
    base: WalkRecord,
    event: RecordEvent,
    now: number,
    table: Pick<MachineContext, "policy" | "followUp">,
    opts: PipelineOptions,
  ): Decision {
    const stepId = "stepId" in event ? event.stepId : undefined;
    return decide(base, event, now, {
      playbook: this.settings.playbookFor(base.walk.playbookId, stepId),
      ...table,
      ...(opts.proposalId !== undefined ? { proposalId: opts.proposalId } : {}),
      ...(opts.writer ? { writer: opts.writer } : {}),
      ...(opts.openItems ? { openItems: opts.openItems } : {}),
      ...(opts.recovery?.firstNewSnapshot
        ? { recoveredAtMs: opts.recovery.firstNewSnapshot.timestampMs }
        : {}),
      ...(opts.recovery?.credit ? { credit: opts.recovery.credit } : {}),
    });
  }

  async noProposal(value: Pick<ActionValue, "incidentId">, user: string): Promise<void> {
    const incident = await this.deps.store.get(value.incidentId);
    if (!incident) return;
    await this.deps.notifier
      .say(
        { incidentId: incident.id, channel: incident.channel },
        { kind: "ephemeral", user, notice: { kind: "no-walk" } },
      )
      .catch((error: unknown) =>
        this.deps.log.warn({ err: asCodedError(error).message }, "ephemeral failed"),
      );
  }
}

/** Whether a change of the walk changes what the card says (steps, checks, recovery, open items). */
function storyMoved(before: WalkRecord | undefined, after: WalkRecord): boolean {
  const facts = (r: WalkRecord | undefined) =>
    r === undefined
      ? ""
      : JSON.stringify([walkStory(r, undefined), r.walk.status, recoveryOf(r), r.openItems ?? []]);
  return facts(before) !== facts(after);
}
