// The diagnosis job: read every evidence source (in parallel, each under its own timeout, inside
// diagnoseTable), keep the report with the incident, and queue the thread message and the card
// edit. Slack jobs carry deterministic ids, so a job that runs twice (a worker died mid-job)
// still yields one message.

import { createHash } from "node:crypto";
import { buildTimeline } from "../../core/chart/timeline.js";
import { closestMatch } from "../../core/incident/closest-match.js";
import { stateAfterDiagnosis } from "../../core/incident/model.js";
import type { RemediationMemory } from "../../core/remediation/record.js";
import type { Report } from "../../core/report/schema.js";
import { tableSettings } from "../../core/settings.js";
import { unknownCatalogWords } from "../../core/sources/model.js";
import { CodedError, ErrorCode, isCodedError } from "../../errors.js";
import { earlierIncidents, memoryOf, sayEarlier } from "../history/earlier.js";
import type { DiagnoseJob, EvidencePorts, HistoryPort } from "../ports.js";
import type { AuditFn, DiagnoseFn, IncidentDeps, TableRequest } from "./deps.js";
import { mergerFor } from "./merge-requests.js";

export interface DiagnosisDeps extends IncidentDeps {
  ports: EvidencePorts;
  diagnose: DiagnoseFn;
  audit: AuditFn;
  sourceTimeoutMs: number;
  /** Tables to suggest from when a name is unknown (config and catalog). */
  knownTables?: () => Promise<string[]>;
  /** Puts the report's next step to the thread (guided remediation). */
  remediation?: {
    proposeFromReport(
      incidentId: string,
      n: number,
      report: Report,
      requestedBy?: string,
      memory?: RemediationMemory,
    ): Promise<void>;
  };
  /** The table's earlier incidents: what fixed the same failure is said and proposed first. */
  history?: HistoryPort;
}

export async function runDiagnoseJob(deps: DiagnosisDeps, job: DiagnoseJob): Promise<void> {
  if (job.kind === "incident") await diagnoseIncident(deps, job.incidentId, job.n);
  else await runCommand(deps, job);
}

function requestFor(deps: DiagnosisDeps, table: string): TableRequest {
  const settings = tableSettings(deps.bot, table);
  return {
    table,
    flinkJob: settings.flinkJob,
    connector: settings.connector,
    timeoutMs: deps.sourceTimeoutMs,
  };
}

async function diagnoseIncident(deps: DiagnosisDeps, incidentId: string, n: number): Promise<void> {
  const incident = await deps.store.require(incidentId);
  if (incident.state === "resolved" || incident.state === "stopped") return;
  if (incident.state !== "diagnosing") {
    // Only a change of state edits the card; a retried job does not touch Slack again.
    const startVersion = await deps.store.update(incidentId, { state: "diagnosing" }, deps.now(), true);
    await deps.slack.send({ kind: "card", incidentId, version: startVersion });
  }
  let report: Awaited<ReturnType<DiagnoseFn>>["report"];
  let evidence: Awaited<ReturnType<DiagnoseFn>>["evidence"];
  const earlier = await earlierIncidents(deps, incident.table, incidentId);
  try {
    ({ report, evidence } = await deps.diagnose(
      deps.ports,
      { ...requestFor(deps, incident.table), history: earlier },
      deps.now,
    ));
  } catch (error) {
    if (isCodedError(error, ErrorCode.TableNotFound)) {
      await noteUnknownTable(deps, incidentId, error);
      return;
    }
    if (isCodedError(error) && !error.retryable) {
      // A problem a person must fix (unknown table, bad config): say so in the thread, stop retrying.
      await deps.slack.send({
        kind: "note",
        incidentId,
        key: `diagnose-failed-${n}`,
        text: `${error.message}${error.hint ? ` ${error.hint}` : ""}`,
      });
      const version = await deps.store.update(incidentId, { state: "open" }, deps.now(), true);
      await deps.slack.send({ kind: "card", incidentId, version });
      return;
    }
    throw error;
  }
  // The thread names a source that failed ("the catalog"); its address and the full reason are
  // for the logs only.
  for (const [source, status] of Object.entries(report.sources)) {
    if (status.status === "unavailable") {
      deps.log.warn({ incident: incidentId, source, reason: status.error }, "evidence source unavailable");
    }
  }
  const now = deps.now();
  await deps.store.saveReport(incidentId, n, report);
  // The picture of the commit race goes with the diagnosis; drawing it is the Slack job's work.
  // A picture that cannot be built never holds the words back.
  if (evidence) {
    try {
      await deps.store.saveChart(
        incidentId,
        n,
        buildTimeline(evidence, now, {
          tableName: report.table,
          ...(report.writer ? { writer: { kind: report.writer.kind, id: report.writer.id } } : {}),
        }),
      );
    } catch (error) {
      deps.log.warn({ incidentId, err: (error as Error).message }, "commit timeline not built");
    }
  }
  await deps.store.appendTimeline(incidentId, {
    at: now,
    kind: "diagnosis",
    text: `verdict ${report.verdict}`,
  });
  const version = await deps.store.update(
    incidentId,
    { state: stateAfterDiagnosis(report.nextStep !== null), verdict: report.verdict },
    now,
    true,
  );
  await deps.slack.send({ kind: "diagnosis", incidentId, n });
  const match = await sayEarlier(deps, incidentId, n, report, earlier, evidence);
  await deps.slack.send({ kind: "card", incidentId, version });
  await deps.remediation?.proposeFromReport(incidentId, n, report, undefined, memoryOf(match));
}

/**
 * An alert about a table neither the catalog nor BOT_CONFIG knows: one note in the thread instead
 * of a failed diagnosis, and no repair to propose; the incident closes when its alerts resolve
 * (closeUnknownTableIncidents), or now if they already have.
 */
async function noteUnknownTable(deps: DiagnosisDeps, incidentId: string, error: CodedError): Promise<void> {
  const incident = await deps.store.require(incidentId);
  const { unknownCatalog, catalogs } = error.details ?? {};
  const catalogWords =
    typeof unknownCatalog === "string" && Array.isArray(catalogs)
      ? ` ${unknownCatalogWords(unknownCatalog, catalogs.map(String))}`
      : "";
  await deps.slack.send({
    kind: "note",
    incidentId,
    key: "unknown-table",
    text:
      `${incident.table} is not a table the catalog or BOT_CONFIG knows, so there is nothing to diagnose.${catalogWords} ` +
      "This incident closes when its alerts resolve. If the table exists, check the alert's table label " +
      "or add the table to BOT_CONFIG.",
  });
  const now = deps.now();
  const version = await deps.store.update(incidentId, { state: "open", tableUnknown: true }, now, true);
  if (incident.firingAlerts === 0) {
    await closeUnknownTableIncidents(deps, [incidentId]);
    return;
  }
  await deps.slack.send({ kind: "card", incidentId, version });
}

/** Closes the given incidents that are about an unknown table and have no alert firing any more. */
export async function closeUnknownTableIncidents(
  deps: Pick<IncidentDeps, "store" | "slack" | "now">,
  incidentIds: readonly string[],
): Promise<string[]> {
  const closed: string[] = [];
  for (const id of new Set(incidentIds)) {
    const incident = await deps.store.get(id);
    if (!incident?.tableUnknown || incident.firingAlerts !== 0) continue;
    if (incident.state === "resolved" || incident.state === "stopped") continue;
    const now = deps.now();
    const version = await deps.store.close(incident, "resolved", now);
    await deps.store.appendTimeline(id, { at: now, kind: "state", text: "resolved: its alerts resolved" });
    await deps.slack.send({ kind: "card", incidentId: id, version });
    closed.push(id);
  }
  return closed;
}

async function runCommand(
  deps: DiagnosisDeps,
  job: Extract<DiagnoseJob, { kind: "command" }>,
): Promise<void> {
  const request = requestFor(deps, job.table);
  try {
    const open = await deps.store.openIncidentFor(job.table);
    // Identical requests share one evidence read and one answer per place (merge-requests.ts).
    const merged = await mergerFor(deps, deps.now).run(`${job.command}:${job.table}`, async () =>
      job.command === "diagnose"
        ? { type: "diagnosis" as const, report: (await deps.diagnose(deps.ports, request, deps.now)).report }
        : { type: "audit" as const, report: (await deps.audit(deps.ports, request, deps.now)).report },
    );
    const result = merged.value;
    const channel = open?.channel ?? job.channel;
    await deps.slack.send({
      kind: "command-result",
      key: createHash("sha256")
        .update(`${merged.id}\u0000${channel}\u0000${open?.id ?? ""}`)
        .digest("base64url")
        .slice(0, 32),
      channel,
      incidentId: open?.id,
      result,
    });
  } catch (error) {
    const failed = isCodedError(error) && !error.retryable;
    if (!failed) throw error instanceof Error ? error : new CodedError(ErrorCode.Internal, String(error));
    // A table no catalog knows gets the closest known name, unless its first part names no
    // catalog: then investigate's words list the catalogs. Any other final error is said as it is.
    const unknownTable =
      isCodedError(error, ErrorCode.TableNotFound) && error.details?.unknownCatalog === undefined;
    const known = unknownTable
      ? ((await deps.knownTables?.().catch(() => [])) ?? Object.keys(deps.bot.tables))
      : [];
    await deps.slack.send({
      kind: "ephemeral",
      channel: job.channel,
      user: job.user,
      reply: unknownTable
        ? {
            kind: "unknown-table",
            input: job.table,
            suggestion: closestMatch(job.table, known),
            command: job.command,
          }
        : { kind: "failed", message: error.message, hint: error.hint },
    });
    return;
  }
}
