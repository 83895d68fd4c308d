// Guided remediation, the use case: the playbook walk of an incident, driven by Slack buttons,
// the apply modal and queue jobs. Every input becomes one machine event, and every event takes one
// path: load the walk, decide (core), save the record with its messages, deliver the effects
// (pipeline.ts). When a decision moves on to a step (a skip, the Next step button), this
// use case reads that from its effects and proposes the step as its next decision; nothing calls
// back into it.

import { type ApprovalPolicy, canApprove } from "../../core/approval/policy.js";
import type { StepId } from "../../core/ids.js";
import { decide, type RecordEvent } from "../../core/remediation/decide.js";
import { approvalsNeeded, offeredNext } from "../../core/remediation/events/shared.js";
import {
  peopleOnWalk,
  type RemediationMemory,
  type RemediationRecord,
} from "../../core/remediation/record.js";
import { type RemediationEvent, startWalk } from "../../core/remediation/walk.js";
import type { Report } from "../../core/report/schema.js";
import { openItemsOf } from "../../core/verification/open-items.js";
import { asCodedError, type CodedError, ErrorCode, isCodedError } from "../../errors.js";
import type { ApplyFormContent, RemediationJob } from "../ports.js";
import type { ActionValue } from "../view-models.js";
import { contextOf, playbookFor, policyOf, type RemediationDeps, stepOf } from "./deps.js";
import { ensurePending, ensureProposalPosted, execute, tell } from "./effects.js";
import { runChangeJob } from "./jobs.js";
import { noRemediation, type Proposal, proposalOrNote, propose, type RunOptions, run } from "./pipeline.js";
import { stepRisk } from "./views.js";

/** What a person did in Slack, recorded by the receiver as a job a worker carries out. */
type PersonJob = Extract<RemediationJob, { kind: "click" | "approval" | "apply-form" }>;
type ButtonKind = Extract<RemediationJob, { kind: "click" }>["button"];

export class Remediation {
  constructor(private readonly deps: RemediationDeps) {}

  /** After a diagnosis: put its next step to the thread, once per diagnosis. */
  async proposeFromReport(
    incidentId: string,
    n: number,
    report: Report,
    requestedBy?: string,
    /** What the table's earlier incident with the same cause says about the steps. */
    memory?: RemediationMemory,
  ): Promise<void> {
    const next = report.nextStep;
    if (!next) return;
    const incident = await this.deps.store.require(incidentId);
    const playbook = playbookFor(this.deps, next.playbook, next.id);
    const now = this.deps.now();
    const existing = (await this.deps.walks.get(incidentId))?.value;
    if (existing && (existing.proposedForDiagnosis ?? 0) >= n) {
      // A retried diagnosis job: the proposal may not have reached Slack the first time.
      if (existing.walk.current)
        await ensureProposalPosted(this.deps, existing, existing.walk.current.stepId);
      return;
    }
    // The diagnosis named the failing writer: the follow-ups judge its recovery, never a twin's.
    const writer: RemediationRecord["writer"] =
      next.change.kind === "connector-config" || next.change.kind === "connector-restart"
        ? { kind: "connector", id: next.change.connector }
        : (failingWriter(report) ?? existing?.writer);
    const fresh: RemediationRecord = {
      incidentId,
      table: incident.table,
      channel: incident.channel,
      walk: startWalk(incident.table, playbook.id, now),
      proposals: [],
      applySeq: 0,
      revertSeq: 0,
    };
    // Guidance is as the diagnosis wrote it; a change the bot makes is built from the table now.
    const proposal: Proposal | undefined =
      next.change.kind === "manual" || next.change.kind === "read-only-check"
        ? { change: next.change }
        : await proposalOrNote(
            this.deps,
            { ...(existing ?? fresh), ...(writer ? { writer } : {}) },
            next.id,
            requestedBy,
          );
    if (!proposal) return;
    const result = await run(
      this.deps,
      incidentId,
      { type: "propose", stepId: next.id, ...proposal, ...(requestedBy ? { requestedBy } : {}) },
      {
        table: incident.table,
        ...(writer ? { writer } : {}),
        openItems: openItemsOf(report),
        init: (current) => {
          if (current && (current.proposedForDiagnosis ?? 0) >= n) return undefined;
          const base = current ?? fresh;
          // A walk that ended (stalled) starts over on a fresh diagnosis.
          const walk = base.walk.status === "active" ? base.walk : fresh.walk;
          return { ...base, walk, proposedForDiagnosis: n, ...(memory ? { memory } : {}) };
        },
      },
    );
    // A retried diagnosis job: the proposal may not have reached Slack the first time.
    if (!result.changed && result.record?.walk.current) {
      await ensureProposalPosted(this.deps, result.record, result.record.walk.current.stepId);
    }
    // Autopilot looks at every proposal made from a diagnosis (a retried job's too: it plans once).
    await this.deps.autopilot?.proposed(incidentId);
  }

  /**
   * Apply pressed (a queued job): check who and when, then fill the placeholder the receiver opened
   * (`viewId`) with the form, or with why not. A refusal is audited whichever way it is shown.
   */
  async openApply(value: ActionValue, user: string, viewId: string): Promise<void> {
    const stored = await this.deps.walks.get(value.incidentId);
    if (!stored) {
      if (!(await fillForm(this.deps, viewId, { kind: "refused", notices: [{ kind: "no-walk" }] })))
        await noRemediation(this.deps, value.incidentId, user);
      return;
    }
    const record = stored.value;
    const ctx = await contextOf(this.deps, record);
    const step = ctx.playbook.steps.find((s) => s.id === value.stepId);
    const event: RemediationEvent = {
      type: "approve",
      stepId: value.stepId,
      user,
      confirmations: step?.confirmations ?? [],
    };
    // Must stay: the form opens before any approval, so only a decision now can show the refusal in
    // its place; nothing is saved, and the submission decides again on the record as it is then.
    const dry = decide(record, event, this.deps.now(), { ...ctx, proposalId: value.proposalId });
    const refused = dry.effects.some(
      (e) => e.type === "audit" && (e.entry.outcome === "refused" || e.entry.outcome === "ignored"),
    );
    const current = record.walk.current;
    if (refused || !current || !step) {
      // Nothing changes, but the attempt is shown in the form (or told, when the form is gone) and audited.
      const told = dry.effects.filter((e) => e.type === "post-ephemeral" || e.type === "audit");
      const notices = told.flatMap((e) => (e.type === "post-ephemeral" ? [e.notice] : []));
      const shown = await fillForm(this.deps, viewId, {
        kind: "refused",
        notices: notices.length > 0 ? notices : [{ kind: "no-open-proposal" }],
      });
      await execute(this.deps, record, shown ? told.filter((e) => e.type === "audit") : told, {
        actor: user,
      });
      // "Already approved" may mean an apply whose job was lost with a process: queue it again.
      await ensurePending(this.deps, record);
      return;
    }
    const filled = await fillForm(this.deps, viewId, {
      kind: "form",
      view: {
        incidentId: record.incidentId,
        proposalId: value.proposalId,
        stepId: current.stepId,
        table: record.table,
        title: step.title,
        change: current.change,
        risky: step.risky || step.confirmations.length > 0,
        risk: stepRisk(step),
        approval: {
          index: current.approvals.length + 1,
          of: approvalsNeeded(step),
          earlier: current.approvals.map((a) => ({
            by: a.user,
            ...(a.reason ? { reason: a.reason } : {}),
          })),
        },
      },
    });
    if (!filled) {
      this.deps.log.warn({ incidentId: record.incidentId }, "the apply form could not be filled in");
      await execute(
        this.deps,
        record,
        [{ type: "post-ephemeral", user, notice: { kind: "apply-form-failed" } }],
        {
          actor: user,
        },
      );
    }
  }

  /** The modal's submission is the approval. */
  async submitApproval(value: ActionValue, user: string, reason: string | undefined, confirmed: boolean) {
    const stored = await this.deps.walks.get(value.incidentId);
    if (!stored) return noRemediation(this.deps, value.incidentId, user);
    const step = stepOf(this.deps, stored.value, value.stepId);
    await run(
      this.deps,
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

  /** A button on a proposal or a verification: one event, decided and delivered; then what it offers. */
  async press(kind: ButtonKind, value: ActionValue, user: string): Promise<void> {
    const { event, opts } = buttonEvent(kind, value, user);
    const { effects } = await run(this.deps, value.incidentId, event, opts);
    // A skip moves on at once, and so does an allowed Next step: propose that step as it is now.
    for (const effect of effects)
      if (effect.type === "offer-next-step" && effect.reason !== "ineffective")
        await propose(this.deps, value.incidentId, effect.nextStepId, user);
  }

  async runJob(job: RemediationJob): Promise<void> {
    if (job.kind === "autopilot") return this.deps.autopilot?.run(job);
    if (job.kind === "apply" || job.kind === "check" || job.kind === "revert")
      return runChangeJob(this.deps, job);
    try {
      if (job.kind === "apply-form") return await this.openApply(job, job.user, job.viewId);
      if (job.kind === "click") await this.press(job.button, job, job.user);
      else await this.submitApproval(job, job.user, job.reason, job.confirmed);
      // An autopilot announcement people overtook loses its Hold and Apply now.
      return await this.deps.autopilot?.settle(job.incidentId);
    } catch (error) {
      if (!isCodedError(error, ErrorCode.StoredRecordInvalid)) throw error;
      // Retrying cannot make the record readable: the person is told once, and the job ends.
      return tellUnreadable(this.deps, job, error);
    }
  }

  /** Who may approve changes to a table, with user group members looked up in Slack. */
  policy(table: string): Promise<ApprovalPolicy> {
    return policyOf(this.deps, table);
  }

  /**
   * Whether `user` answers for the table now: one of its approvers (a user group's members
   * included), or someone working its open incident's walk. The table's command limit never
   * refuses them. Unreadable state counts as no, which leaves the ordinary limit in force.
   */
  async isOnCall(table: string, user: string): Promise<boolean> {
    try {
      if (canApprove(await policyOf(this.deps, table), user).allowed) return true;
      const open = await this.deps.store.openIncidentFor(table);
      const walk = open ? (await this.deps.walks.get(open.id))?.value : undefined;
      return walk ? peopleOnWalk(walk).has(user) : false;
    } catch (error) {
      this.deps.log.warn({ table, err: asCodedError(error).message }, "who is on call not known");
      return false;
    }
  }

  /**
   * The autopilot's approval: the event and path a person's form submission takes (same audit
   * record), under the policy's actor, which BOT_CONFIG's `autopilot:` grants for this decision.
   */
  async approveUnderPolicy(value: ActionValue, actor: string, reason: string): Promise<void> {
    await run(
      this.deps,
      value.incidentId,
      { type: "approve", stepId: value.stepId, user: actor, reason, confirmations: [] },
      { proposalId: value.proposalId, actor, grant: actor },
    );
  }

  /** The autopilot's revert of its own change: the Revert button's event, under the policy's actor. */
  async revertUnderPolicy(incidentId: string, stepId: StepId, actor: string): Promise<void> {
    await run(
      this.deps,
      incidentId,
      { type: "revert-requested", stepId, user: actor },
      { actor, grant: actor },
    );
  }

  /**
   * After a step that did not help: proposes the step the playbook offers next, for people to
   * approve, while no other step is open. Returns the step proposed.
   */
  async proposeNextStep(incidentId: string): Promise<StepId | undefined> {
    const record = (await this.deps.walks.get(incidentId))?.value;
    if (record?.walk.status !== "active" || record.walk.current) return undefined;
    const next = offeredNext(record.walk, await contextOf(this.deps, record));
    if (next) await propose(this.deps, incidentId, next);
    return next;
  }

  /** Proposes a step of the stored walk, built afresh from the table as it is now. */
  proposeStep(incidentId: string, stepId: StepId, actor?: string): Promise<void> {
    return propose(this.deps, incidentId, stepId, actor);
  }
}

async function fillForm(deps: RemediationDeps, viewId: string, content: ApplyFormContent): Promise<boolean> {
  try {
    return await deps.notifier.fillApplyForm(viewId, content);
  } catch (error) {
    deps.log.warn({ err: asCodedError(error).message }, "views.update failed for the apply form");
    return false;
  }
}

/** Says to whoever pressed a button that the incident's stored walk is not one this release may use. */
async function tellUnreadable(deps: RemediationDeps, job: PersonJob, error: CodedError): Promise<void> {
  const newer = error.details?.newer === true;
  deps.log.error(
    { incidentId: job.incidentId, err: error.message, hint: error.hint },
    newer ? "a walk a newer release stored is left as it is" : "a stored walk cannot be read",
  );
  const notice = { kind: "record-unreadable" as const, incidentId: job.incidentId, newer };
  if (job.kind === "apply-form" && (await fillForm(deps, job.viewId, { kind: "refused", notices: [notice] })))
    return;
  const failure = "the person could not be told the walk is unreadable";
  try {
    await tell(deps, job.incidentId, job.user, notice, failure);
  } catch (told) {
    deps.log.warn({ err: asCodedError(told).message }, failure);
  }
}

/** The event of each button that names its step. */
const STEP_BUTTONS = {
  done: "done-by-hand",
  skip: "skip",
  revert: "revert-requested",
  next: "next-requested",
} as const;

/** The event a button stands for; a proposal's own buttons name it, so an older one is refused. */
function buttonEvent(
  kind: ButtonKind,
  value: ActionValue,
  user: string,
): { event: RecordEvent; opts: RunOptions } {
  if (kind === "stop" || kind === "item-done") return { event: { type: kind, user }, opts: { actor: user } };
  const onProposal = kind === "done" || kind === "skip";
  return {
    event: { type: STEP_BUTTONS[kind], stepId: value.stepId, user },
    opts: onProposal ? { proposalId: value.proposalId, actor: user } : { actor: user },
  };
}

/** The writer a report names as failing, as the remediation record keeps it. */
function failingWriter(report: Report): RemediationRecord["writer"] {
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
