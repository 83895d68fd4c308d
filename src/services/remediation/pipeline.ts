// The remediation pipeline, the one way a walk changes: load → decide (core) → save with a
// compare-and-set (its Slack messages saved with it) → perform the effects. It returns the decision's
// effects and calls nothing back: what a caller does next (propose the step a skip moved on to)
// is the caller's to read from them. Also the one proposal builder every path proposes a step
// through (a diagnosis, a skip, the Next step button, an apply that found the table moved): the
// change is built from the table as it is now, and a read that fails fails the proposal, said in
// the thread: it never guesses "unset".

import type { StepId } from "../../core/ids.js";
import { type ChangeFacts, chooseVariant, proposeChange } from "../../core/remediation/change.js";
import { type DecideContext, decide, type RecordEvent } from "../../core/remediation/decide.js";
import type { RemediationRecord } from "../../core/remediation/record.js";
import type { Effect, ProposalTarget } from "../../core/remediation/walk.js";
import type { Change } from "../../core/report/schema.js";
import { tableSettings } from "../../core/settings.js";
import { recoveryOf } from "../../core/story/recovery.js";
import { walkStory } from "../../core/story/steps.js";
import { parseTableName } from "../../core/table-name.js";
import { asCodedError, CodedError, ErrorCode } from "../../errors.js";
import { followUpOf, playbookFor, policyOf, type RemediationDeps, stepOf } from "./deps.js";
import { type ExecuteExtra, ensurePending, execute, messages, tell } from "./effects.js";

export interface RunOptions extends ExecuteExtra, Pick<DecideContext, "proposalId" | "writer" | "openItems"> {
  /** Builds or resets the record before the event (first proposal of an incident). */
  init?: (current: RemediationRecord | undefined) => RemediationRecord | undefined;
  /** The table, when no walk is stored yet. */
  table?: string;
  /** The autopilot policy actor this decision is made under (services/autopilot). */
  grant?: string;
}

export interface RunResult {
  record?: RemediationRecord;
  changed: boolean;
  /** What the decision asked for (empty when nothing was saved). */
  effects: readonly Effect[];
}

export async function run(
  deps: RemediationDeps,
  incidentId: string,
  event: RecordEvent,
  opts: RunOptions,
): Promise<RunResult> {
  // 1. Load: the table's settings the decision is made against.
  const existing = (await deps.walks.get(incidentId))?.value;
  const table = existing?.table ?? opts.table;
  if (!table) return { changed: false, effects: [] };
  const policy = {
    ...(await policyOf(deps, table)),
    ...(opts.grant !== undefined ? { autopilot: opts.grant } : {}),
  };
  const followUp = followUpOf(deps, table);
  const now = deps.now();
  const stepId = "stepId" in event ? event.stepId : undefined;
  // 2–3. Decide on the record as stored and save it with a compare-and-set, the decision's
  // Slack messages with it (a lost race decides again on the newer record).
  const outcome = await deps.walks.mutate<Effect[]>(incidentId, (current) => {
    const base = opts.init ? opts.init(current) : current;
    if (!base) return undefined;
    const { record, effects } = decide(base, event, now, {
      playbook: playbookFor(deps, base.walk.playbookId, stepId),
      policy,
      followUp,
      proposalId: opts.proposalId,
      writer: opts.writer,
      openItems: opts.openItems,
      recoveredAtMs: opts.recovery?.firstNewSnapshot?.timestampMs,
      credit: opts.recovery?.credit,
    });
    // The card follows the thread in the same delivery whenever the walk's story moved.
    const said = messages(deps, record, effects, opts, policy.approvers);
    return {
      record,
      result: effects,
      messages: storyMoved(current, record) ? [...said, { kind: "card" as const }] : said,
    };
  });
  if (!outcome.changed || !outcome.record) {
    if (!outcome.record && "user" in event) await noRemediation(deps, incidentId, event.user);
    return { changed: false, effects: [], ...(outcome.record ? { record: outcome.record } : {}) };
  }
  // 4. Perform: carry out what the saved decision asked for.
  const effects = outcome.result ?? [];
  await execute(deps, outcome.record, effects, {
    ...opts,
    messagesRecorded: outcome.messagesRecorded === true,
  });
  // If an earlier process died between recording and queueing, the missing job is added now.
  await ensurePending(deps, outcome.record);
  return { record: outcome.record, changed: true, effects };
}

/** Tells the person who pressed a button that the incident has no walk. */
export function noRemediation(deps: RemediationDeps, incidentId: string, user: string): Promise<void> {
  return tell(deps, incidentId, user, { kind: "no-walk" }, "ephemeral failed");
}

/** Whether a change of the walk changes what the card says (steps, checks, recovery, open items). */
function storyMoved(before: RemediationRecord | undefined, after: RemediationRecord): boolean {
  const facts = (r: RemediationRecord | undefined) =>
    r === undefined
      ? ""
      : JSON.stringify([walkStory(r, undefined), r.walk.status, recoveryOf(r), r.openItems ?? []]);
  return facts(before) !== facts(after);
}

export interface Proposal {
  change: Change;
  target?: ProposalTarget;
}

/** Proposes a step of the stored walk, built afresh from the table as it is now. */
export async function propose(
  deps: RemediationDeps,
  incidentId: string,
  stepId: StepId,
  actor?: string,
): Promise<void> {
  const stored = await deps.walks.get(incidentId);
  if (!stored) return;
  const proposal = await proposalOrNote(deps, stored.value, stepId, actor);
  if (!proposal) return;
  await run(
    deps,
    incidentId,
    { type: "propose", stepId, ...proposal, ...(actor ? { requestedBy: actor } : {}) },
    actor ? { actor } : {},
  );
}

/** The proposal, or undefined after telling the thread why none could be made. */
export async function proposalOrNote(
  deps: RemediationDeps,
  record: Pick<RemediationRecord, "incidentId" | "table" | "channel" | "walk" | "writer">,
  stepId: StepId,
  actor?: string,
): Promise<Proposal | undefined> {
  try {
    return await buildProposal(deps, record, stepId);
  } catch (error) {
    await noteProposalFailed(deps, record, stepId, asCodedError(error).message, actor);
    return undefined;
  }
}

/** The change a step proposes for the table as it is now, and the target it was made against. */
async function buildProposal(
  deps: RemediationDeps,
  record: Pick<RemediationRecord, "table" | "walk" | "writer">,
  stepId: StepId,
): Promise<Proposal> {
  const playbook = playbookFor(deps, record.walk.playbookId, stepId);
  const step = playbook.steps.find((s) => s.id === stepId);
  if (!step) throw new CodedError(ErrorCode.Internal, `Step ${stepId} is not in playbook ${playbook.id}`);
  const settings = tableSettings(deps.bot, record.table);
  const connector =
    settings.connector ?? (record.writer?.kind === "connector" ? record.writer.id : undefined);
  // The change goes to the catalog holding the table and the Connect cluster the evidence named.
  const catalogSource = deps.ports.catalogs?.forTable(record.table)?.name;
  const connectCluster = record.writer?.kind === "connector" ? record.writer.cluster : undefined;
  const facts: ChangeFacts = {
    table: record.table,
    writer: record.writer?.kind === "connector" ? "connect" : record.writer ? "flink" : "unknown",
    ...(connector ? { connector } : {}),
    ...(catalogSource ? { catalogSource } : {}),
    ...(connectCluster ? { connectCluster } : {}),
  };
  const variant = chooseVariant(step, facts);
  let target: ProposalTarget | undefined;
  if (variant?.kind === "table-properties") {
    const { catalog } = deps.ports;
    if (!catalog)
      throw new CodedError(ErrorCode.ConfigInvalid, "No catalog is configured to read the table from");
    const table = await catalog.loadTable(parseTableName(record.table)).catch(unreadable("the catalog"));
    facts.properties = table.properties;
    target = {
      uuid: table.uuid,
      ...(table.metadataLocation ? { metadataLocation: table.metadataLocation } : {}),
      values: valuesOf(variant.set, table.properties),
    };
  }
  if (variant?.kind === "connector-config" && connector) {
    const { connect } = deps.ports;
    if (!connect)
      throw new CodedError(ErrorCode.ConfigInvalid, "No Kafka Connect is configured to read from");
    const evidence = await connect
      .getConnectorEvidence(connector, connectCluster)
      .catch(unreadable("Kafka Connect"));
    facts.connectorConfig = evidence.config;
    target = { values: valuesOf(variant.set, evidence.config) };
  }
  const change = proposeChange(step, facts);
  if (!change) {
    throw new CodedError(ErrorCode.Internal, `Step ${stepId} has no change for a ${facts.writer} writer`);
  }
  return { change, ...(target ? { target } : {}) };
}

/** A step that could not be proposed: said in the thread and audited, never proposed blind. */
async function noteProposalFailed(
  deps: RemediationDeps,
  record: Pick<RemediationRecord, "incidentId" | "table" | "channel" | "walk">,
  stepId: StepId,
  reason: string,
  actor?: string,
): Promise<void> {
  const stepTitle = stepOf(deps, record, stepId)?.title ?? stepId;
  const at = deps.now();
  const note = { kind: "proposal-failed", stepTitle, reason, table: record.table } as const;
  await deps.notifier
    .say(record, { kind: "note", name: `proposal-failed-${stepId}-${at}`, note })
    .catch((error: unknown) =>
      deps.log.warn({ err: asCodedError(error).message }, "proposal failure note failed"),
    );
  await deps.audit.append(record.table, {
    atMs: at,
    actor: actor ?? "bot",
    action: "propose",
    stepId,
    outcome: "failed",
    detail: `could not propose ${stepId}: ${reason}`,
    incidentId: record.incidentId,
  });
}

function unreadable(source: string) {
  return (error: unknown): never => {
    throw new CodedError(
      ErrorCode.SourceUnreachable,
      `${source} could not be read (${asCodedError(error).message})`,
      { cause: error },
    );
  };
}

function valuesOf(
  templates: ReadonlyArray<{ key: string; budget?: { perAttempt: string } | undefined }>,
  current: Readonly<Record<string, string>>,
): Record<string, string | null> {
  const keys = templates.flatMap((t) => [t.key, ...(t.budget ? [t.budget.perAttempt] : [])]);
  return Object.fromEntries(keys.map((key) => [key, current[key] ?? null]));
}
