// A step's proposal, built from the table as it is now (one builder for every path: a diagnosis,
// a skip, the Next step button, an apply that found the table moved), then proposed to the walk.
// A read that fails fails the proposal, said in the thread: it never guesses "unset".

import type { StepId } from "../../core/ids.js";
import { type ChangeFacts, chooseVariant, proposeChange } from "../../core/playbook/change.js";
import type { WalkRecord } from "../../core/playbook/record.js";
import type { ProposalTarget } from "../../core/playbook/walk.js";
import type { Change } from "../../core/report/schema.js";
import { tableSettings } from "../../core/settings.js";
import { parseTableName } from "../../core/table-name.js";
import { asCodedError, CodedError, ErrorCode } from "../../errors.js";
import type { RemediationDeps } from "./deps.js";
import type { RemediationEffects } from "./effects.js";
import type { Pipeline } from "./pipeline.js";
import type { RemediationSettings } from "./settings.js";

export interface Proposal {
  change: Change;
  target?: ProposalTarget;
}

export class StepProposals {
  constructor(
    private readonly deps: RemediationDeps,
    private readonly settings: RemediationSettings,
    private readonly pipeline: Pipeline,
    private readonly effects: RemediationEffects,
  ) {}

  /** Proposes a step of the stored walk, built afresh from the table as it is now. */
  async propose(incidentId: string, stepId: StepId, actor?: string): Promise<void> {
    const stored = await this.deps.walks.get(incidentId);
    if (!stored) return;
    const proposal = await this.proposalOrNote(stored.value, stepId, actor);
    if (!proposal) return;
    await this.pipeline.run(
      incidentId,
      { type: "propose", stepId, ...proposal, ...(actor ? { requestedBy: actor } : {}) },
      actor ? { actor } : {},
    );
  }

  /** The proposal, or undefined after telling the thread why none could be made. */
  async proposalOrNote(
    record: Pick<WalkRecord, "incidentId" | "table" | "channel" | "walk" | "writer">,
    stepId: StepId,
    actor?: string,
  ): Promise<Proposal | undefined> {
    try {
      return await this.build(record, stepId);
    } catch (error) {
      await this.effects.noteProposalFailed(record, stepId, asCodedError(error).message, actor);
      return undefined;
    }
  }

  /** The change a step proposes for the table as it is now, and the target it was made against. */
  async build(record: Pick<WalkRecord, "table" | "walk" | "writer">, stepId: StepId): Promise<Proposal> {
    const playbook = this.settings.playbookFor(record.walk.playbookId, stepId);
    const step = playbook.steps.find((s) => s.id === stepId);
    if (!step) throw new CodedError(ErrorCode.Internal, `Step ${stepId} is not in playbook ${playbook.id}`);
    const settings = tableSettings(this.deps.bot, record.table);
    const connector =
      settings.connector ?? (record.writer?.kind === "connector" ? record.writer.id : undefined);
    // The change goes to the catalog holding the table and the Connect cluster the evidence named.
    const catalogSource = this.deps.ports.catalogs?.forTable(record.table)?.name;
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
      const evidence = await connect
        .getConnectorEvidence(connector, connectCluster)
        .catch((error: unknown) => {
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

function valuesOf(
  templates: ReadonlyArray<{ key: string; budget?: { perAttempt: string } | undefined }>,
  current: Readonly<Record<string, string>>,
): Record<string, string | null> {
  const keys = templates.flatMap((t) => [t.key, ...(t.budget ? [t.budget.perAttempt] : [])]);
  return Object.fromEntries(keys.map((key) => [key, current[key] ?? null]));
}
