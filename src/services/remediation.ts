// Guided remediation: the playbook walk of an incident, driven by Slack buttons, the apply modal
// and queue jobs. Every input becomes a machine event applied with a compare-and-set on the stored
// walk; the effects the machine returns are then carried out (Slack messages, jobs, audit rows).

import type { RemediationJob } from "../adapters/queue/remediation-queue.js";
import { renderApplyModal } from "../adapters/slack/render/index.js";
import type { ActionValue } from "../adapters/slack/render/view-models.js";
import type { WalkRecord } from "../adapters/store/walk-store.js";
import { tableSettings } from "../config.js";
import { type ApprovalPolicy, canApprove, policyFor } from "../core/approval/policy.js";
import type { StepId } from "../core/ids.js";
import { transition } from "../core/playbook/machine.js";
import type { Playbook, Step } from "../core/playbook/schema.js";
import { buildChange, buildNextStep, type ChangeFacts } from "../core/playbook/select.js";
import {
  type AuditEntry,
  type Effect,
  type FollowUpSettings,
  type MachineContext,
  startWalk,
  type WalkEvent,
  type WalkState,
} from "../core/playbook/walk.js";
import type { Change, Report } from "../core/report/schema.js";
import { parseTableName } from "../core/table-name.js";
import { evaluateRecovery, identifyWriter, type RecoveryResult } from "../core/verification/check.js";
import { asCodedError, CodedError, ErrorCode } from "../errors.js";
import { applyChange, outcomeEvent, revertChange } from "./apply-change.js";
import { investigate } from "./investigate.js";
import type { RemediationDeps } from "./remediation-deps.js";
import { type ExecuteExtra, RemediationEffects } from "./remediation-effects.js";
import { proposalIdFor } from "./remediation-views.js";

export type { RemediationDeps } from "./remediation-deps.js";

export type ButtonKind = "done" | "skip" | "stop" | "revert" | "next";

interface DispatchOptions extends ExecuteExtra {
  /** The proposal the button belonged to; older proposals are refused as out of date. */
  proposalId?: string;
  /** Builds or resets the record before the event (first proposal of an incident). */
  init?: (current: WalkRecord | undefined) => WalkRecord | undefined;
  writer?: WalkRecord["writer"];
  diagnosis?: number;
}

const GROUP_CACHE_MS = 60_000;

export class Remediation {
  private readonly effects: RemediationEffects;
  private readonly groupCache = new Map<string, { atMs: number; users: string[] }>();

  constructor(private readonly deps: RemediationDeps) {
    this.effects = new RemediationEffects(deps, {
      policy: (table) => this.policy(table),
      step: (playbookId, stepId) => this.step(playbookId, stepId),
      proposeNext: (incidentId, stepId, actor) => this.proposeStep(incidentId, stepId, actor),
    });
  }

  // --- entry points ------------------------------------------------------------------------

  /** After a diagnosis: put its next step to the thread, once per diagnosis. */
  async proposeFromReport(
    incidentId: string,
    n: number,
    report: Report,
    requestedBy?: string,
  ): Promise<void> {
    const next = report.nextStep;
    if (!next) return;
    const incident = await this.deps.store.require(incidentId);
    const playbook = this.playbookFor(next.playbook, next.id);
    const now = this.deps.now();
    const result = await this.dispatch(
      incidentId,
      { type: "propose", stepId: next.id, change: next.change, ...(requestedBy ? { requestedBy } : {}) },
      {
        table: incident.table,
        diagnosis: n,
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
            base.walk.status === "active" ? base.walk : { ...startWalk(incident.table, playbook.id, now) };
          return { ...base, walk, proposedForDiagnosis: n };
        },
      },
    );
    // A retried diagnosis job: the proposal may not have reached Slack the first time.
    if (!result.changed && result.record?.walk.current) {
      await this.effects.ensureProposalPosted(result.record, result.record.walk.current.stepId);
    }
  }

  /** Apply pressed: check who and when before opening the modal, so a refusal comes at once. */
  async openApply(value: ActionValue, user: string, triggerId: string): Promise<void> {
    const stored = await this.deps.walks.get(value.incidentId);
    if (!stored) return this.noProposal(value, user);
    const record = stored.value;
    const ctx = await this.context(record);
    const step = ctx.playbook.steps.find((s) => s.id === value.stepId);
    const event: WalkEvent = {
      type: "approve",
      stepId: value.stepId,
      user,
      confirmations: step?.confirmations ?? [],
    };
    const dry =
      staleProposal(record, event, value.proposalId, this.deps.now()) ??
      transition(record.walk, event, this.deps.now(), ctx);
    const refused = dry.effects.some(
      (e) => e.type === "audit" && (e.entry.outcome === "refused" || e.entry.outcome === "ignored"),
    );
    const run = record.walk.current;
    if (refused || !run || !step) {
      // Nothing changes, but the attempt is told and audited.
      const told = dry.effects.filter((e) => e.type === "post-ephemeral" || e.type === "audit");
      await this.effects.execute(record, told, { actor: user });
      return;
    }
    const modal = renderApplyModal({
      incidentId: record.incidentId,
      proposalId: value.proposalId,
      stepId: run.stepId,
      table: record.table,
      title: step.title,
      change: run.change,
      risky: step.risky || step.confirmations.length > 0,
    });
    try {
      await this.deps.slack.views.open({ trigger_id: triggerId, view: modal });
    } catch (error) {
      this.deps.log.warn({ err: asCodedError(error).message }, "views.open failed for the apply modal");
      await this.effects.execute(
        record,
        [
          {
            type: "post-ephemeral",
            user,
            text: "The approval form could not be opened (Slack refused it, perhaps it took too long). Press Apply again.",
          },
        ],
        { actor: user },
      );
    }
  }

  /** The modal's submission is the approval. */
  async submitApproval(value: ActionValue, user: string, reason: string | undefined, confirmed: boolean) {
    const stored = await this.deps.walks.get(value.incidentId);
    if (!stored) return this.noProposal(value, user);
    const ctx = await this.context(stored.value);
    const step = ctx.playbook.steps.find((s) => s.id === value.stepId);
    await this.dispatch(
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
        await this.dispatch(value.incidentId, { type: "done-by-hand", stepId: value.stepId, user }, opts);
        return;
      case "skip":
        await this.dispatch(value.incidentId, { type: "skip", stepId: value.stepId, user }, opts);
        return;
      case "stop":
        await this.dispatch(value.incidentId, { type: "stop", user }, { actor: user });
        return;
      case "revert":
        await this.dispatch(
          value.incidentId,
          { type: "revert-requested", stepId: value.stepId, user },
          { actor: user },
        );
        return;
      case "next":
        await this.pressNext(value, user);
        return;
    }
  }

  async runJob(job: RemediationJob): Promise<void> {
    switch (job.kind) {
      case "apply":
        await this.runApply(job);
        return;
      case "check":
        await this.runCheck(job);
        return;
      case "revert":
        await this.runRevert(job);
        return;
    }
  }

  /** Who may approve changes to a table, with user group members looked up in Slack. */
  async policy(table: string): Promise<ApprovalPolicy> {
    const approvers = tableSettings(this.deps.bot, table).approvers;
    const members: Record<string, string[]> = {};
    for (const id of approvers.filter((a) => a.startsWith("S"))) members[id] = await this.groupMembers(id);
    return policyFor(this.deps.bot, table, members);
  }

  // --- jobs ----------------------------------------------------------------------------------

  private async runApply(job: Extract<RemediationJob, { kind: "apply" }>): Promise<void> {
    // apply-started first: a Stop that came before it wins, and nothing is applied.
    const started = await this.dispatch(job.incidentId, { type: "apply-started", stepId: job.stepId }, {});
    const record = started.record;
    const run = record?.walk.current;
    if (!record || !run || run.stepId !== job.stepId || run.phase !== "applying") {
      // Already recorded (a retried job): make sure what follows it is queued.
      if (record) await this.effects.ensurePending(record);
      return;
    }
    if (record.applySeq !== job.attempt || proposalIdFor(record, job.stepId) !== job.proposalId) return;
    const outcome = await applyChange(this.deps.ports, run.change, { table: parseTableName(record.table) });
    await this.deps.afterApply?.(job);
    const recorded = await this.dispatch(job.incidentId, outcomeEvent(job.stepId, outcome), {});
    if (
      outcome.status === "conflict-rechecked" ||
      outcome.status === "not-applied" ||
      outcome.status === "unknown"
    ) {
      await this.effects.noteApplyFailure(recorded.record ?? record, job, outcome.detail);
    }
    if (outcome.status === "conflict-rechecked") {
      // The table moved under the proposal: put the same step again with today's values.
      const refreshed = refreshChange(run.change, outcome.drift);
      await this.dispatch(job.incidentId, { type: "propose", stepId: job.stepId, change: refreshed }, {});
    }
  }

  private async runCheck(job: Extract<RemediationJob, { kind: "check" }>): Promise<void> {
    const stored = await this.deps.walks.get(job.incidentId);
    const record = stored?.value;
    const run = record?.walk.current;
    if (!record || !run || run.stepId !== job.stepId || run.checksDone + 1 !== job.checkIndex) return;
    if (proposalIdFor(record, job.stepId) !== job.proposalId) return;
    const step = this.step(record.walk.playbookId, job.stepId);
    const settings = tableSettings(this.deps.bot, record.table);
    let recovery: RecoveryResult;
    let writer = record.writer;
    try {
      const evidence = await investigate(
        this.deps.ports,
        {
          table: record.table,
          flinkJob: settings.flinkJob,
          connector: settings.connector,
          timeoutMs: this.deps.sourceTimeoutMs,
        },
        this.deps.now,
      );
      const identity = identifyWriter(evidence);
      if (identity.kind === "flink") writer = { kind: "flink-job", id: identity.jobId };
      if (identity.kind === "connect") writer = { kind: "connector", id: identity.connector };
      recovery = evaluateRecovery(
        {
          changeAtMs: run.appliedAtMs ?? run.proposedAtMs,
          writer: identity,
          ...(step ? { signals: step.verify.signals } : {}),
        },
        evidence,
        this.deps.now(),
      );
    } catch (error) {
      recovery = { recovered: false, detail: `could not read the table (${asCodedError(error).message})` };
    }
    await this.dispatch(
      job.incidentId,
      {
        type: "check",
        stepId: job.stepId,
        checkIndex: job.checkIndex,
        result: { recovered: recovery.recovered, detail: recovery.detail },
      },
      { recovery, ...(writer ? { writer } : {}) },
    );
  }

  private async runRevert(job: Extract<RemediationJob, { kind: "revert" }>): Promise<void> {
    const stored = await this.deps.walks.get(job.incidentId);
    const record = stored?.value;
    const run = record?.walk.history.findLast((r) => r.stepId === job.stepId && r.phase === "reverting");
    if (!record || !run?.previous) return;
    const outcome = await revertChange(this.deps.ports, run.change, run.previous, {
      table: parseTableName(record.table),
    });
    const ok = ["applied", "already-applied", "applied-confirmed"].includes(outcome.status);
    await this.dispatch(
      job.incidentId,
      { type: "reverted", stepId: job.stepId, ok, message: outcome.detail },
      {},
    );
  }

  // --- helpers -------------------------------------------------------------------------------

  /** "Next step" after an ineffective one: build the change from the table as it is now. */
  private async pressNext(value: ActionValue, user: string): Promise<void> {
    const stored = await this.deps.walks.get(value.incidentId);
    if (!stored) return this.noProposal(value, user);
    const record = stored.value;
    const policy = await this.policy(record.table);
    const decision = canApprove(policy, user);
    const refusal = (text: string, outcome: AuditEntry["outcome"]): Effect[] => [
      { type: "post-ephemeral", user, text },
      {
        type: "audit",
        entry: {
          atMs: this.deps.now(),
          table: record.table,
          actor: user,
          action: "propose",
          stepId: value.stepId,
          outcome,
          detail: text,
        },
      },
    ];
    if (!decision.allowed) {
      await this.effects.execute(record, refusal(decision.reason, "refused"), { actor: user });
      return;
    }
    if (record.walk.status !== "active" || record.walk.current) {
      const text =
        record.walk.current?.stepId === value.stepId
          ? "That step is already proposed in the thread."
          : "A step is already open for this table; decide on it first.";
      await this.effects.execute(record, refusal(text, "ignored"), { actor: user });
      return;
    }
    await this.proposeStep(value.incidentId, value.stepId, user);
  }

  async proposeStep(incidentId: string, stepId: StepId, actor?: string): Promise<void> {
    const stored = await this.deps.walks.get(incidentId);
    if (!stored) return;
    const change = await this.changeFor(stored.value, stepId);
    await this.dispatch(
      incidentId,
      { type: "propose", stepId, change, ...(actor ? { requestedBy: actor } : {}) },
      actor ? { actor } : {},
    );
  }

  private async changeFor(record: WalkRecord, stepId: StepId): Promise<Change> {
    const playbook = this.playbookFor(record.walk.playbookId, stepId);
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
    const { catalog, connect } = this.deps.ports;
    if (catalog) {
      facts.properties = await catalog
        .loadTable(parseTableName(record.table))
        .then((t) => t.properties)
        .catch(() => ({}));
    }
    if (connect && connector) {
      facts.connectorConfig = await connect
        .getConnectorEvidence(connector)
        .then((e) => e.config)
        .catch(() => ({}));
    }
    const built = buildNextStep(playbook, step, facts);
    return built?.change ?? buildChange(step.changes[0] as Step["changes"][number], facts);
  }

  private async dispatch(
    incidentId: string,
    event: WalkEvent,
    opts: DispatchOptions & { table?: string },
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
    return { record: outcome.record, changed: true };
  }

  private async noProposal(value: Pick<ActionValue, "incidentId">, user: string): Promise<void> {
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

  private async context(record: WalkRecord): Promise<MachineContext> {
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

  private playbookFor(playbookId: string, stepId?: string): Playbook {
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

  private step(playbookId: string, stepId: string): Step | undefined {
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
function staleProposal(
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

/** The same change with its `current` values brought up to date after a concurrent commit. */
function refreshChange(change: Change, drift: ReadonlyArray<{ key: string; now: string | null }>): Change {
  if (change.kind !== "table-properties" && change.kind !== "connector-config") return change;
  const now = new Map(drift.map((d) => [d.key, d.now]));
  return {
    ...change,
    changes: change.changes.map((c) => (now.has(c.key) ? { ...c, current: now.get(c.key) ?? null } : c)),
  };
}
