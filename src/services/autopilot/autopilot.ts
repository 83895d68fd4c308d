// The autopilot, the use case: when a diagnosis proposes a step, decide (core/autopilot) whether a
// written policy lets the bot apply it; announce it in the thread and schedule the hold-off's end
// as a delayed job; when it fires, decide again and approve through the same path a person's
// approval takes. After the step's checks, a change that did not help is reverted and the walk is
// handed back to people with the next step proposed. Shadow mode plans without announcing or
// applying, and is judged against what people did once the walk ends.

import { canApprove } from "../../core/approval/policy.js";
import {
  type AutopilotDecision,
  type AutopilotFacts,
  decideAutopilot,
  policyActor,
  type SwitchState,
  utcDayStart,
} from "../../core/autopilot/decide.js";
import type { AutopilotConfig } from "../../core/autopilot/policy.js";
import type { RemediationJob } from "../../core/jobs.js";
import { proposalIdFor, type RemediationRecord } from "../../core/remediation/record.js";
import type { PlaybookSet } from "../../core/remediation/schema.js";
import { type Notice, runsOf, type StepRun } from "../../core/remediation/walk.js";
import { type Report, ReportSchema } from "../../core/report/schema.js";
import {
  type AutopilotFate,
  agreementWords,
  notApproverWords,
  type PolicyStep,
  peopleFirstWords,
  refusalWords,
  saysRefusal,
  selfStoppedWords,
  statusWords,
  switchedWords,
} from "../../core/words/autopilot.js";
import { asCodedError } from "../../errors.js";
import type { LogLike } from "../incident/deps.js";
import type {
  AuditPort,
  Clock,
  IncidentStorePort,
  RemediationNotifier,
  RemediationScheduler,
  RemediationStorePort,
  SlackOutboxPort,
} from "../ports.js";
import type { Remediation } from "../remediation/remediation.js";
import type { ActionValue } from "../view-models.js";
import type { AutopilotPlan, AutopilotStorePort } from "./ports.js";

type AutopilotJob = Extract<RemediationJob, { kind: "autopilot" }>;

/** The announcement's message name: posted once, edited when its fate is decided. */
const announcementName = (proposalId: string) => `autopilot-${proposalId}`;

/** Whether the announced proposal still waits for approval (nobody approved or took it). */
function waiting(record: RemediationRecord, value: ActionValue): boolean {
  const run = record.walk.current;
  return (
    run?.stepId === value.stepId &&
    run.phase === "proposed" &&
    proposalIdFor(record, value.stepId) === value.proposalId
  );
}

/** What a late Hold is answered with: who approved the step, or that no proposal is open. */
function whatHappened(record: RemediationRecord, value: ActionValue): Notice {
  const runs = runsOf(record.walk);
  const run = runs.findLast((r) => r.stepId === value.stepId);
  const approvers = run?.approvals.map((a) => a.user) ?? [];
  return approvers.length > 0
    ? { kind: "already-approved", approverUserIds: approvers }
    : { kind: "no-open-proposal" };
}

/** The audit trail's name for autopilot's own entries; approvers are BOT_CONFIG's defaults'. */
const AUTOPILOT_AUDIT_TABLE = "autopilot";

export interface AutopilotDeps {
  config: AutopilotConfig;
  /** "file:line" of each policy line in BOT_CONFIG, by name, for the announcement. */
  policyLines?: Readonly<Record<string, string>>;
  store: AutopilotStorePort;
  walks: Pick<RemediationStorePort, "get">;
  incidents: Pick<IncidentStorePort, "get" | "getReport">;
  jobs: RemediationScheduler;
  notifier: RemediationNotifier;
  slack: SlackOutboxPort;
  playbooks: PlaybookSet;
  /** What the autopilot asks of guided remediation: the paths a person's buttons take. */
  remediation: Pick<Remediation, "approveUnderPolicy" | "revertUnderPolicy" | "proposeNextStep" | "policy">;
  now: Clock;
  log: LogLike;
  /** Counts each decision (adapters/http/metrics/autopilot.ts). */
  onDecision?: (outcome: "act" | "refuse", reason: string, shadow: boolean) => void;
  /** The audit trail: switching autopilot is audited under the pseudo-table `autopilot`. */
  audit?: AuditPort;
  /** Runs right after the autonomous approval is recorded (kill -9 drills crash a worker here). */
  afterApprove?: () => Promise<void>;
}

export class Autopilot {
  constructor(private readonly deps: AutopilotDeps) {}

  /** A step was proposed from a diagnosis: plan it when the policy and the story allow. */
  async proposed(incidentId: string): Promise<void> {
    if (this.deps.config.mode === "off") return;
    try {
      const record = (await this.deps.walks.get(incidentId))?.value;
      const run = record?.walk.current;
      if (!record || !run || run.phase !== "proposed") return;
      const proposalId = proposalIdFor(record, run.stepId);
      if (!proposalId) return;
      const existing = await this.deps.store.plan(incidentId);
      if (existing) {
        // A retried diagnosis job: what was owed for the plan is owed again (idempotent by name and id).
        if (!existing.shadow && existing.proposalId === proposalId) await this.announce(record, existing);
        return;
      }
      const decision = await this.decide(record, run);
      if (!decision) return;
      this.deps.onDecision?.(
        decision.act ? "act" : "refuse",
        decision.act ? decision.policy : decision.refusal.kind,
        decision.shadow,
      );
      if (!decision.act) {
        await this.deps.store.noteRefusal(incidentId, decision.refusal);
        // One line so people know the step is theirs (named: a retried diagnosis says it once).
        if (saysRefusal(decision.refusal))
          await this.deps.notifier.say(record, {
            kind: "note",
            name: `autopilot-refused-${proposalId}`,
            note: { kind: "autopilot-refused", stepId: run.stepId, refusal: decision.refusal },
          });
        return;
      }
      const plan: AutopilotPlan = {
        incidentId,
        table: record.table,
        stepId: run.stepId,
        proposalId,
        policy: decision.policy,
        applyAtMs: decision.applyAtMs,
        shadow: decision.shadow,
      };
      // The announcement and its job before the plan: a crash between them leaves a job that decides
      // again when it fires.
      if (!plan.shadow) await this.announce(record, plan);
      await this.deps.store.savePlan(plan);
    } catch (error) {
      // Autopilot never stands in the way of the proposal people see.
      this.deps.log.warn({ incidentId, err: asCodedError(error).message }, "autopilot could not plan");
    }
  }

  async run(job: AutopilotJob): Promise<void> {
    const value = { incidentId: job.incidentId, stepId: job.stepId, proposalId: job.proposalId };
    switch (job.action) {
      case "fire":
        return this.fire(value, undefined);
      case "hold":
        return this.hold(value, job.user ?? "");
      case "apply-now": {
        const record = (await this.deps.walks.get(job.incidentId))?.value;
        if (!record || !job.user) return;
        // Apply now only shortens the hold-off; still, only an approver of the table may.
        if (!canApprove(await this.deps.remediation.policy(record.table), job.user).allowed) {
          await this.deps.notifier.say(record, {
            kind: "ephemeral",
            user: job.user,
            notice: {
              kind: "not-approver",
              table: record.table,
              reason: "not-listed",
              approverUserIds: [],
              approverGroupIds: [],
            },
          });
          return;
        }
        return this.fire(value, job.user);
      }
    }
  }

  /**
   * `/iceberg autopilot on|off|status`: approvers (BOT_CONFIG's defaults) switch it for every
   * process at once (one key, read by every decision); every attempt is audited.
   */
  async command(action: "on" | "off" | "status", request: { channel: string; user: string }): Promise<void> {
    const { store, slack, now } = this.deps;
    let said = "";
    if (action !== "status") {
      const allowed = canApprove(
        await this.deps.remediation.policy(AUTOPILOT_AUDIT_TABLE),
        request.user,
      ).allowed;
      await this.deps.audit?.append(AUTOPILOT_AUDIT_TABLE, {
        atMs: now(),
        actor: request.user,
        action: `autopilot ${action}`,
        outcome: allowed ? "ok" : "refused",
        detail: allowed ? `switched autopilot ${action}` : "refused: not an approver",
      });
      if (allowed) await store.setSwitch(action);
      said = allowed ? switchedWords(action) : notApproverWords();
    }
    const text = [said, ...(await this.statusLines())].filter(Boolean).join("\n");
    await slack.send({
      kind: "ephemeral",
      channel: request.channel,
      user: request.user,
      reply: { kind: "text", text },
    });
  }

  /** What App Home says of autopilot: its mode and switch, and shadow agreement per step (none when off). */
  async homeLines(): Promise<string[]> {
    return this.deps.config.mode === "off" ? [] : this.statusLines();
  }

  private async statusLines(): Promise<string[]> {
    const state = await this.deps.store.switchState();
    const tally = await this.deps.store.shadowTally();
    return [
      statusWords(this.deps.config.mode, state),
      ...tally.map((t) => agreementWords(t.stepId, t.would, t.matched, t.fixed)),
    ];
  }

  /**
   * The hold-off ended (or Apply now, pressed by `by`): decide again, claim the plan, approve as a
   * person would.
   */
  private async fire(value: ActionValue, by: string | undefined): Promise<void> {
    const record = (await this.deps.walks.get(value.incidentId))?.value;
    if (!record) return;
    const plan = await this.deps.store.plan(value.incidentId);
    if (!waiting(record, value)) {
      // People acted on the step first, or autopilot already approved it (a retried job).
      if (plan) await this.peopleFirst(record, plan);
      return;
    }
    const run = record.walk.current;
    if (!run) return;
    const claimed = await this.deps.store.claimOf(value.incidentId);
    if (claimed?.kind === "held") return;
    // Claimed before a crash, not yet approved: the approval is the walk's to make once.
    let policy = plan?.policy;
    if (claimed?.kind !== "fired") {
      // Nothing applied yet: every fact is checked again, now.
      const decision = await this.decide(record, run, { ignoreHandedBack: true });
      if (!decision?.act || decision.shadow) {
        const reason = decision && !decision.act ? refusalWords(decision.refusal) : "autopilot is not on";
        if (decision && !decision.act) await this.deps.store.noteRefusal(value.incidentId, decision.refusal);
        await this.deps.store.handBack(value.incidentId);
        await this.deps.notifier.say(record, {
          kind: "note",
          name: `autopilot-declined-${value.proposalId}`,
          note: { kind: "autopilot-declined", reason },
        });
        if (plan) await this.settleAnnouncement(record, plan, { kind: "handed-back", reason });
        return;
      }
      const won = await this.deps.store.claim(value.incidentId, { kind: "fired" });
      if (won.kind === "held") return;
      policy ??= decision.policy;
      await this.deps.store.recordChange(
        record.table,
        `${value.incidentId}|${value.proposalId}`,
        this.deps.now(),
      );
    }
    if (policy === undefined) return;
    await this.deps.remediation.approveUnderPolicy(value, policyActor(policy), `policy ${policy}`);
    await this.deps.afterApprove?.();
    if (plan)
      await this.settleAnnouncement(record, plan, by ? { kind: "applied-now", by } : { kind: "applied" });
  }

  /** The announcement edited to say how it ended, its Hold and Apply now gone (idempotent: one name). */
  private async settleAnnouncement(
    record: RemediationRecord,
    plan: AutopilotPlan,
    fate: AutopilotFate,
  ): Promise<void> {
    await this.deps.notifier.say(record, {
      kind: "update-note",
      name: announcementName(plan.proposalId),
      note: { kind: "autopilot-settled", ...this.policyOf(plan), fate },
    });
  }

  /**
   * People approved (or did by hand, skipped, stopped) the announced step before autopilot: the
   * announcement says so once. A plan autopilot itself approved keeps the edit its firing made.
   */
  private async peopleFirst(record: RemediationRecord, plan: AutopilotPlan): Promise<void> {
    if (plan.shadow || (await this.deps.store.claimOf(plan.incidentId))) return;
    if (!(await this.deps.store.handBack(plan.incidentId))) return;
    await this.settleAnnouncement(record, plan, { kind: "handed-back", reason: peopleFirstWords() });
  }

  /** Hold: the first of a Hold and the hold-off's end wins; a held step waits for people. */
  private async hold(value: ActionValue, user: string): Promise<void> {
    const record = (await this.deps.walks.get(value.incidentId))?.value;
    if (!record || !user) return;
    const plan = await this.deps.store.plan(value.incidentId);
    // Too late: a person approved the step, or autopilot did; the presser is told what happened.
    const late = !waiting(record, value);
    const won = late ? await this.deps.store.claimOf(value.incidentId) : undefined;
    const claim =
      won ?? (late ? undefined : await this.deps.store.claim(value.incidentId, { kind: "held", by: user }));
    if (late || claim?.kind === "fired") {
      await this.deps.notifier.say(record, { kind: "ephemeral", user, notice: whatHappened(record, value) });
      if (late && plan) await this.peopleFirst(record, plan);
      return;
    }
    if (claim?.kind !== "held") return;
    await this.deps.store.handBack(value.incidentId);
    if (plan) await this.settleAnnouncement(record, plan, { kind: "held", by: claim.by });
  }

  /**
   * After a person's click or approval, a check or a revert: an announcement people overtook says
   * so; revert autopilot's own change when the writer did not recover, and
   * once reverted hand the walk back with the next step proposed. Shadow plans are judged once the
   * walk ends. Idempotent: a job retried after a crash repeats only what is still owed.
   */
  async settle(incidentId: string): Promise<void> {
    const plan = await this.deps.store.plan(incidentId);
    if (!plan) return;
    const record = (await this.deps.walks.get(incidentId))?.value;
    if (!record) return;
    if (plan.shadow) return this.judgeShadow(plan, record);
    if (!waiting(record, plan)) await this.peopleFirst(record, plan);
    const actor = policyActor(plan.policy);
    const run = record.walk.history.findLast(
      (r) => r.stepId === plan.stepId && r.approvals.some((a) => a.user === actor),
    );
    if (!run) return;
    if (run.phase === "ineffective" && run.beforeRevert === undefined && run.previous !== undefined) {
      await this.deps.remediation.revertUnderPolicy(incidentId, run.stepId, actor);
      return;
    }
    const reverted = run.phase === "reverted";
    const revertFailed = run.phase === "ineffective" && run.beforeRevert !== undefined;
    if (!reverted && !revertFailed) return;
    if (await this.deps.store.handedBack(incidentId)) return;
    const next = reverted ? await this.deps.remediation.proposeNextStep(incidentId) : undefined;
    await this.deps.notifier.say(record, {
      kind: "note",
      name: `autopilot-reverted-${plan.proposalId}`,
      note: { kind: "autopilot-reverted", stepId: run.stepId, ok: reverted, ...(next ? { next } : {}) },
    });
    await this.deps.store.handBack(incidentId);
    if (reverted) await this.countRevert(record, plan);
  }

  private async countRevert(record: RemediationRecord, plan: AutopilotPlan): Promise<void> {
    const { count, windowMinutes } = this.deps.config.stopAfterReverts;
    const within = await this.deps.store.recordRevert(
      `${plan.incidentId}|${plan.proposalId}`,
      this.deps.now(),
      windowMinutes * 60_000,
    );
    if (within < count || (await this.deps.store.switchState()) !== "on") return;
    await this.deps.store.setSwitch("self-stopped");
    this.deps.log.warn({ reverts: within, windowMinutes }, "autopilot stopped itself for the fleet");
    await this.deps.slack.send({
      kind: "channel-note",
      channel: record.channel,
      key: `autopilot-self-stopped-${plan.incidentId}`,
      text: selfStoppedWords(within, windowMinutes),
    });
  }

  /** Once the walk ended: did people apply the same step first, and did it fix the incident? */
  private async judgeShadow(plan: AutopilotPlan, record: RemediationRecord): Promise<void> {
    if (record.walk.status === "active") return;
    const runs = runsOf(record.walk);
    const acted = runs.find(
      (r) => r.approvals.length > 0 || r.appliedAtMs !== undefined || r.phase === "done-by-hand",
    );
    if (!acted) return;
    const fixedBy = record.recovery?.stepId ?? runs.find((r) => r.phase === "recovered")?.stepId;
    await this.deps.store.judgeShadow(
      plan.incidentId,
      plan.stepId,
      acted.stepId === plan.stepId,
      fixedBy === plan.stepId,
    );
  }

  /**
   * The announcement, then the hold-off's end, both idempotent (a named note, a job id). In this
   * order: the edit the fired job makes must follow the announcement in the thread's outbox, or a
   * short hold-off could edit a message not yet posted and the announcement would keep its buttons.
   */
  private async announce(record: RemediationRecord, plan: AutopilotPlan): Promise<void> {
    const delayMs = Math.max(0, plan.applyAtMs - this.deps.now());
    const action = { incidentId: plan.incidentId, stepId: plan.stepId, proposalId: plan.proposalId };
    await this.deps.notifier.say(record, {
      kind: "note",
      name: announcementName(plan.proposalId),
      note: { kind: "autopilot-planned", ...this.policyOf(plan), applyAtMs: plan.applyAtMs, action },
    });
    await this.deps.jobs.enqueue({ kind: "autopilot", action: "fire", ...action }, delayMs);
  }

  private policyOf(plan: AutopilotPlan): PolicyStep {
    const line = this.deps.policyLines?.[plan.policy];
    return { stepId: plan.stepId, policy: plan.policy, ...(line ? { line } : {}) };
  }

  private async decide(
    record: RemediationRecord,
    run: StepRun,
    options: { ignoreHandedBack?: boolean } = {},
  ): Promise<AutopilotDecision | undefined> {
    const n = record.proposedForDiagnosis;
    if (n === undefined) return undefined;
    const parsed = ReportSchema.safeParse(await this.deps.incidents.getReport(record.incidentId, n));
    if (!parsed.success) return undefined;
    const report: Report = parsed.data;
    const now = this.deps.now();
    // People already approved, did by hand or are reverting a step of this walk: it is theirs.
    const inWalk = record.walk.history.some(
      (r) => r.phase === "reverting" || r.phase === "done-by-hand" || r.approvals.length > 0,
    );
    const facts: AutopilotFacts = {
      table: record.table,
      ...(report.catalogSource ? { catalog: report.catalogSource } : {}),
      report,
      stepId: run.stepId,
      inWalk,
      failedLastTime: record.memory?.didNotHelp.includes(run.stepId) === true,
      handedBack: options.ignoreHandedBack ? false : await this.deps.store.handedBack(record.incidentId),
    };
    const switchState: SwitchState = await this.deps.store.switchState();
    return decideAutopilot({
      config: this.deps.config,
      switchState,
      playbooks: this.deps.playbooks.playbooks,
      facts,
      nowMs: now,
      budgets: {
        tableToday: await this.deps.store.changesSince(record.table, utcDayStart(now)),
        fleetLastHour: await this.deps.store.changesSince(undefined, now - 3_600_000),
      },
    });
  }
}
