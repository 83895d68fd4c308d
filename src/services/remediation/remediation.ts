// Guided remediation: the playbook walk of an incident, driven by Slack buttons, the apply modal
// and queue jobs. Every input becomes a machine event applied with a compare-and-set on the stored
// walk; the effects the machine returns are then carried out (Slack messages, jobs, audit rows).

import { type ApprovalPolicy, approverIds, canApprove } from "../../core/approval/policy.js";
import type { StepId } from "../../core/ids.js";
import { type ChangeFacts, chooseVariant, proposeChange } from "../../core/playbook/change.js";
import { decide } from "../../core/playbook/decide.js";
import { approvalsNeeded, nextTarget } from "../../core/playbook/machine.js";
import type { WalkMemory, WalkRecord } from "../../core/playbook/record.js";
import {
  type AuditEntry,
  type Effect,
  type Notice,
  type ProposalTarget,
  startWalk,
  type WalkEvent,
  type WalkState,
} from "../../core/playbook/walk.js";
import type { Change, Report } from "../../core/report/schema.js";
import { tableSettings } from "../../core/settings.js";
import { parseTableName } from "../../core/table-name.js";
import { openItemsOf } from "../../core/verification/open-items.js";
import { asCodedError, CodedError, ErrorCode } from "../../errors.js";
import type { ApplyFormContent, RemediationJob } from "../ports.js";
import type { ActionValue } from "../view-models.js";
import type { RemediationDeps } from "./deps.js";
import { RemediationJobs } from "./jobs.js";
import { stepRisk } from "./views.js";
import { WalkDispatcher } from "./walk-dispatcher.js";

export type { RemediationDeps } from "./deps.js";

export type ButtonKind = "done" | "skip" | "stop" | "revert" | "next" | "item-done";

const pick = (value: ActionValue): ActionValue => ({
  incidentId: value.incidentId,
  stepId: value.stepId,
  proposalId: value.proposalId,
});

export class Remediation {
  private readonly dispatcher: WalkDispatcher;
  private readonly jobs: RemediationJobs;

  constructor(private readonly deps: RemediationDeps) {
    this.dispatcher = new WalkDispatcher(deps, (incidentId, stepId, actor) =>
      this.proposeStep(incidentId, stepId, actor),
    );
    this.jobs = new RemediationJobs(deps, this.dispatcher);
  }

  // --- entry points ------------------------------------------------------------------------

  /** After a diagnosis: put its next step to the thread, once per diagnosis. */
  async proposeFromReport(
    incidentId: string,
    n: number,
    report: Report,
    requestedBy?: string,
    /** What the table's earlier incident with the same cause says about the steps. */
    memory?: WalkMemory,
  ): Promise<void> {
    const next = report.nextStep;
    if (!next) return;
    const incident = await this.deps.store.require(incidentId);
    const playbook = this.dispatcher.playbookFor(next.playbook, next.id);
    const now = this.deps.now();
    const existing = (await this.deps.walks.get(incidentId))?.value;
    if (existing && (existing.proposedForDiagnosis ?? 0) >= n) {
      // A retried diagnosis job: the proposal may not have reached Slack the first time.
      if (existing.walk.current)
        await this.dispatcher.effects.ensureProposalPosted(existing, existing.walk.current.stepId);
      return;
    }
    // The diagnosis named the failing writer: the follow-ups judge its recovery, never a twin's.
    const writer: WalkRecord["writer"] =
      next.change.kind === "connector-config" || next.change.kind === "connector-restart"
        ? { kind: "connector", id: next.change.connector }
        : (failingWriter(report) ?? existing?.writer);
    // Guidance is as the diagnosis wrote it; a change the bot makes is built from the table now.
    const proposal: Proposal | undefined =
      next.change.kind === "manual" || next.change.kind === "read-only-check"
        ? { change: next.change }
        : await this.proposalOrNote(
            {
              incidentId,
              table: incident.table,
              channel: incident.channel,
              walk: existing?.walk ?? startWalk(incident.table, playbook.id, now),
              ...(writer ? { writer } : {}),
            },
            next.id,
            requestedBy,
          );
    if (!proposal) return;
    const result = await this.dispatcher.dispatch(
      incidentId,
      { type: "propose", stepId: next.id, ...proposal, ...(requestedBy ? { requestedBy } : {}) },
      {
        table: incident.table,
        ...(writer ? { writer } : {}),
        openItems: openItemsOf(report),
        init: (current) => {
          if (current && (current.proposedForDiagnosis ?? 0) >= n) return undefined;
          const base: WalkRecord = current ?? {
            incidentId,
            table: incident.table,
            channel: incident.channel,
            walk: startWalk(incident.table, playbook.id, now),
            proposals: [],
            applySeq: 0,
            revertSeq: 0,
          };
          // A walk that ended (stalled) starts over on a fresh diagnosis.
          const walk: WalkState =
            base.walk.status === "active" ? base.walk : startWalk(incident.table, playbook.id, now);
          return { ...base, walk, proposedForDiagnosis: n, ...(memory ? { memory } : {}) };
        },
      },
    );
    // A retried diagnosis job: the proposal may not have reached Slack the first time.
    if (!result.changed && result.record?.walk.current) {
      await this.dispatcher.effects.ensureProposalPosted(result.record, result.record.walk.current.stepId);
    }
  }

  /**
   * Apply pressed (a queued job): check who and when, then fill the placeholder the receiver opened
   * (`viewId`) with the form, or with why not. A refusal is audited whichever way it is shown.
   */
  async openApply(value: ActionValue, user: string, viewId: string): Promise<void> {
    const stored = await this.deps.walks.get(value.incidentId);
    if (!stored) {
      if (!(await this.fillForm(viewId, { kind: "refused", notices: [{ kind: "no-walk" }] })))
        await this.dispatcher.noProposal(value, user);
      return;
    }
    const record = stored.value;
    const ctx = await this.dispatcher.context(record);
    const step = ctx.playbook.steps.find((s) => s.id === value.stepId);
    const event: WalkEvent = {
      type: "approve",
      stepId: value.stepId,
      user,
      confirmations: step?.confirmations ?? [],
    };
    const dry = decide(record, event, this.deps.now(), { ...ctx, proposalId: value.proposalId });
    const refused = dry.effects.some(
      (e) => e.type === "audit" && (e.entry.outcome === "refused" || e.entry.outcome === "ignored"),
    );
    const run = record.walk.current;
    if (refused || !run || !step) {
      // Nothing changes, but the attempt is shown in the form (or told, when the form is gone) and audited.
      const told = dry.effects.filter((e) => e.type === "post-ephemeral" || e.type === "audit");
      const notices = told.flatMap((e) => (e.type === "post-ephemeral" ? [e.notice] : []));
      const shown = await this.fillForm(viewId, {
        kind: "refused",
        notices: notices.length > 0 ? notices : [{ kind: "no-open-proposal" }],
      });
      await this.dispatcher.effects.execute(record, shown ? told.filter((e) => e.type === "audit") : told, {
        actor: user,
      });
      // "Already approved" may mean an apply whose job was lost with a process: queue it again.
      await this.dispatcher.effects.ensurePending(record);
      return;
    }
    const filled = await this.fillForm(viewId, {
      kind: "form",
      view: {
        incidentId: record.incidentId,
        proposalId: value.proposalId,
        stepId: run.stepId,
        table: record.table,
        title: step.title,
        change: run.change,
        risky: step.risky || step.confirmations.length > 0,
        risk: stepRisk(step),
        approval: {
          index: run.approvals.length + 1,
          of: approvalsNeeded(step),
          earlier: run.approvals.map((a) => ({ by: a.user, ...(a.reason ? { reason: a.reason } : {}) })),
        },
      },
    });
    if (!filled) {
      this.deps.log.warn({ incidentId: record.incidentId }, "the apply form could not be filled in");
      await this.dispatcher.effects.execute(
        record,
        [{ type: "post-ephemeral", user, notice: { kind: "apply-form-failed" } }],
        { actor: user },
      );
    }
  }

  private async fillForm(viewId: string, content: ApplyFormContent): Promise<boolean> {
    try {
      return await this.deps.notifier.fillApplyForm(viewId, content);
    } catch (error) {
      this.deps.log.warn({ err: asCodedError(error).message }, "views.update failed for the apply form");
      return false;
    }
  }

  /** The modal's submission is the approval. */
  async submitApproval(value: ActionValue, user: string, reason: string | undefined, confirmed: boolean) {
    const stored = await this.deps.walks.get(value.incidentId);
    if (!stored) return this.dispatcher.noProposal(value, user);
    const ctx = await this.dispatcher.context(stored.value);
    const step = ctx.playbook.steps.find((s) => s.id === value.stepId);
    await this.dispatcher.dispatch(
      value.incidentId,
      {
        type: "approve",
        stepId: value.stepId,
        user,
        ...(reason ? { reason } : {}),
        confirmations: confirmed ? (step?.confirmations ?? []) : [],
      },
      { proposalId: value.proposalId, actor: user },
    );
  }

  async press(kind: ButtonKind, value: ActionValue, user: string): Promise<void> {
    const opts = { proposalId: value.proposalId, actor: user };
    switch (kind) {
      case "done":
        await this.dispatcher.dispatch(
          value.incidentId,
          { type: "done-by-hand", stepId: value.stepId, user },
          opts,
        );
        return;
      case "skip":
        await this.dispatcher.dispatch(value.incidentId, { type: "skip", stepId: value.stepId, user }, opts);
        return;
      case "stop":
        await this.dispatcher.dispatch(value.incidentId, { type: "stop", user }, { actor: user });
        return;
      case "revert":
        await this.dispatcher.dispatch(
          value.incidentId,
          { type: "revert-requested", stepId: value.stepId, user },
          { actor: user },
        );
        return;
      case "next":
        await this.pressNext(value, user);
        return;
      case "item-done":
        await this.dispatcher.dispatch(value.incidentId, { type: "item-done", user }, { actor: user });
        return;
    }
  }

  /**
   * The receiver's part of a click or a form submission: record it as a job and return. What it
   * causes (reads, the walk's decision, messages) happens in a worker, in runJob. `slackId` is
   * Slack's id of the delivery, so a repeat adds the same job once.
   */
  async recordClick(kind: ButtonKind, value: ActionValue, user: string, slackId: string): Promise<void> {
    await this.deps.jobs.enqueue({ kind: "click", button: kind, ...pick(value), user, slackId });
  }

  /** Apply pressed: recorded as a job that fills the placeholder form `viewId` the receiver opened. */
  async recordApplyClick(value: ActionValue, user: string, slackId: string, viewId: string): Promise<void> {
    await this.deps.jobs.enqueue({ kind: "apply-form", ...pick(value), user, slackId, viewId });
  }

  async recordApproval(
    value: ActionValue,
    user: string,
    reason: string | undefined,
    confirmed: boolean,
    slackId: string,
  ): Promise<void> {
    await this.deps.jobs.enqueue({
      kind: "approval",
      ...pick(value),
      user,
      ...(reason ? { reason } : {}),
      confirmed,
      slackId,
    });
  }

  async runJob(job: RemediationJob): Promise<void> {
    if (job.kind === "click") return this.press(job.button, pick(job), job.user);
    if (job.kind === "approval") return this.submitApproval(pick(job), job.user, job.reason, job.confirmed);
    if (job.kind === "apply-form") return this.openApply(pick(job), job.user, job.viewId);
    await this.jobs.run(job);
  }

  /** Who may approve changes to a table, with user group members looked up in Slack. */
  policy(table: string): Promise<ApprovalPolicy> {
    return this.dispatcher.policy(table);
  }

  // --- helpers -------------------------------------------------------------------------------

  /** "Next step" after an ineffective one: build the change from the table as it is now. */
  private async pressNext(value: ActionValue, user: string): Promise<void> {
    const stored = await this.deps.walks.get(value.incidentId);
    if (!stored) return this.dispatcher.noProposal(value, user);
    const record = stored.value;
    const policy = await this.dispatcher.policy(record.table);
    const decision = canApprove(policy, user);
    const refusal = (notice: Notice, outcome: AuditEntry["outcome"]): Effect[] => [
      { type: "post-ephemeral", user, notice },
      {
        type: "audit",
        entry: {
          atMs: this.deps.now(),
          table: record.table,
          actor: user,
          action: "propose",
          stepId: value.stepId,
          outcome,
          detail: `${outcome}: ${notice.kind}`,
        },
      },
    ];
    if (!decision.allowed) {
      const notice: Notice = {
        kind: "not-approver",
        table: record.table,
        reason: decision.reason,
        ...approverIds(policy),
      };
      await this.dispatcher.effects.execute(record, refusal(notice, "refused"), { actor: user });
      return;
    }
    if (record.walk.status !== "active" || record.walk.current) {
      const notice: Notice =
        record.walk.current?.stepId === value.stepId ? { kind: "already-proposed" } : { kind: "step-open" };
      await this.dispatcher.effects.execute(record, refusal(notice, "ignored"), { actor: user });
      return;
    }
    // Only the step the playbook offers next can be proposed from this button.
    const last = record.walk.history[record.walk.history.length - 1];
    const offered = last
      ? nextTarget(record.walk, last.stepId, await this.dispatcher.context(record))
      : undefined;
    if (offered?.kind !== "step" || offered.stepId !== value.stepId) {
      await this.dispatcher.effects.execute(record, refusal({ kind: "offer-changed" }, "ignored"), {
        actor: user,
      });
      return;
    }
    await this.proposeStep(value.incidentId, value.stepId, user);
  }

  async proposeStep(incidentId: string, stepId: StepId, actor?: string): Promise<void> {
    const stored = await this.deps.walks.get(incidentId);
    if (!stored) return;
    const proposal = await this.proposalOrNote(stored.value, stepId, actor);
    if (!proposal) return;
    await this.dispatcher.dispatch(
      incidentId,
      { type: "propose", stepId, ...proposal, ...(actor ? { requestedBy: actor } : {}) },
      actor ? { actor } : {},
    );
  }

  /** The proposal, or undefined after telling the thread why none could be made. */
  private async proposalOrNote(
    record: Pick<WalkRecord, "incidentId" | "table" | "channel" | "walk" | "writer">,
    stepId: StepId,
    actor?: string,
  ): Promise<Proposal | undefined> {
    try {
      return await this.buildProposal(record, stepId);
    } catch (error) {
      await this.dispatcher.effects.noteProposalFailed(record, stepId, asCodedError(error).message, actor);
      return undefined;
    }
  }

  /**
   * The change a step proposes for the table as it is now (one builder for every path), and the
   * target it was made against. A read that fails fails the proposal: it never guesses "unset".
   */
  async buildProposal(
    record: Pick<WalkRecord, "table" | "walk" | "writer">,
    stepId: StepId,
  ): Promise<Proposal> {
    const playbook = this.dispatcher.playbookFor(record.walk.playbookId, stepId);
    const step = playbook.steps.find((s) => s.id === stepId);
    if (!step) throw new CodedError(ErrorCode.Internal, `Step ${stepId} is not in playbook ${playbook.id}`);
    const settings = tableSettings(this.deps.bot, record.table);
    const connector =
      settings.connector ?? (record.writer?.kind === "connector" ? record.writer.id : undefined);
    const facts: ChangeFacts = {
      table: record.table,
      writer: record.writer?.kind === "connector" ? "connect" : record.writer ? "flink" : "unknown",
      ...(connector ? { connector } : {}),
    };
    const variant = chooseVariant(step, facts);
    let target: ProposalTarget | undefined;
    if (variant?.kind === "table-properties") {
      const { catalog } = this.deps.ports;
      if (!catalog)
        throw new CodedError(ErrorCode.ConfigInvalid, "No catalog is configured to read the table from");
      const table = await catalog.loadTable(parseTableName(record.table)).catch((error: unknown) => {
        throw new CodedError(
          ErrorCode.SourceUnreachable,
          `the catalog could not be read (${asCodedError(error).message})`,
          { cause: error },
        );
      });
      facts.properties = table.properties;
      target = {
        uuid: table.uuid,
        ...(table.metadataLocation ? { metadataLocation: table.metadataLocation } : {}),
        values: valuesOf(variant.set, table.properties),
      };
    }
    if (variant?.kind === "connector-config" && connector) {
      const { connect } = this.deps.ports;
      if (!connect)
        throw new CodedError(ErrorCode.ConfigInvalid, "No Kafka Connect is configured to read from");
      const evidence = await connect.getConnectorEvidence(connector).catch((error: unknown) => {
        throw new CodedError(
          ErrorCode.SourceUnreachable,
          `Kafka Connect could not be read (${asCodedError(error).message})`,
          { cause: error },
        );
      });
      facts.connectorConfig = evidence.config;
      target = { values: valuesOf(variant.set, evidence.config) };
    }
    const change = proposeChange(step, facts);
    if (!change) {
      throw new CodedError(ErrorCode.Internal, `Step ${stepId} has no change for a ${facts.writer} writer`);
    }
    return { change, ...(target ? { target } : {}) };
  }
}

export interface Proposal {
  change: Change;
  target?: ProposalTarget;
}

function valuesOf(
  templates: ReadonlyArray<{ key: string; budget?: { perAttempt: string } | undefined }>,
  current: Readonly<Record<string, string>>,
): Record<string, string | null> {
  const keys = templates.flatMap((t) => [t.key, ...(t.budget ? [t.budget.perAttempt] : [])]);
  return Object.fromEntries(keys.map((key) => [key, current[key] ?? null]));
}

/** The writer a report names as failing, as the walk record keeps it. */
function failingWriter(report: Report): WalkRecord["writer"] {
  const w = report.writer;
  if (!w) return undefined;
  if (w.kind === "connect") return { kind: "connector", id: w.id };
  return {
    kind: "flink-job",
    id: w.id,
    ...(w.name ? { name: w.name } : {}),
    ...(w.operatorId ? { operatorId: w.operatorId } : {}),
    ...(w.failedAt ? { failedAtMs: Date.parse(w.failedAt) } : {}),
  };
}
