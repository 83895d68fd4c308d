// Alerts in: each firing alert opens or joins its table's incident; the one that opens it also
// queues the status card and the first diagnosis. Resolved alerts are noted, never resolve:
// an incident ends when the writer's commits resume. The exception is an incident about a table
// neither the catalog nor BOT_CONFIG knows (no writer to watch): it closes when its alerts resolve.
//
// A webhook is answered after one Redis round trip: the whole batch goes through the store's
// intake script, which also records the work it promised (intake promises: the status card, the
// first diagnosis, a card edit) beside the incident. That work is queued after the answer;
// whatever a dead process left promised is queued by the promise keeper (intake-promises.ts).

import { resolveAlertTable } from "../core/incident/alert-table.js";
import type { AlertEvent } from "../core/incident/model.js";
import { tableSettings } from "../core/settings.js";
import type { IncidentDeps } from "./incident/deps.js";
import { closeUnknownTableIncidents } from "./incident/diagnosis.js";
import { queuePromised } from "./intake-promises.js";
import type { IntakeAlert, IntakePromise } from "./ports.js";

export interface AlertIntakeDeps extends IncidentDeps {
  /** Tables the catalog knows (cached by the caller); config tables are always known. */
  knownTables?: () => Promise<string[]>;
}

export interface AlertOutcome {
  accepted: number;
  ignored: number;
  /** Incidents opened by this call. */
  opened: string[];
  /** Settles when the promised jobs are queued (the webhook answers before that). */
  queued: Promise<void>;
}

/** Alerts seen within this window are taken as repeats (Alertmanager re-sends, a second bot replica). */
const REPEAT_WINDOW_SECONDS = 3600;

/** Alerts per intake script run. */
const INTAKE_SLICE = 250;

export async function acceptAlerts(deps: AlertIntakeDeps, alerts: AlertEvent[]): Promise<AlertOutcome> {
  const configured = Object.keys(deps.bot.tables);
  let fromCatalog: string[] | undefined;
  const outcome: AlertOutcome = { accepted: 0, ignored: 0, opened: [], queued: Promise.resolve() };
  const batch: IntakeAlert[] = [];
  for (const alert of alerts) {
    // Config first: the catalog is asked only for names config does not know, so a slow or
    // unreachable catalog never delays alerts about configured tables.
    let known = configured;
    const first = resolveAlertTable(alert.labels, deps.bot, configured);
    if ((first.table === undefined || !configured.includes(first.table)) && deps.knownTables) {
      fromCatalog ??= await deps.knownTables().catch(() => []);
      known = [...configured, ...fromCatalog];
    }
    const item = toIntakeAlert(
      deps,
      alert,
      known === configured ? first : resolveAlertTable(alert.labels, deps.bot, known),
    );
    if (item) batch.push(item);
    else outcome.ignored++;
  }
  const now = deps.now();
  // In slices, so one large notification never holds Redis for long; none is refused for its size.
  const results: Awaited<ReturnType<typeof deps.store.intake>> = [];
  for (let at = 0; at < batch.length; at += INTAKE_SLICE) {
    results.push(
      ...(await deps.store.intake(batch.slice(at, at + INTAKE_SLICE), now, REPEAT_WINDOW_SECONDS)),
    );
  }
  const promised: IntakePromise[] = [];
  const resolvedNoted: string[] = [];
  results.forEach((result, i) => {
    if (result.kind === "resolved-noted") resolvedNoted.push(result.incidentId);
    if (result.kind === "nothing-open") {
      outcome.ignored++;
      return;
    }
    outcome.accepted++;
    if (result.kind === "opened") {
      outcome.opened.push(result.incidentId);
      promised.push({ kind: "open", incidentId: result.incidentId, member: `open|${result.incidentId}` });
      deps.log.info({ incident: result.incidentId, table: batch[i]?.table }, "incident opened");
    } else if ((result.kind === "resolved-noted" || result.kind === "joined") && result.cardVersion) {
      // A resolve, or a change in which alerts fire: the card's alert line changes.
      promised.push({
        kind: "card",
        incidentId: result.incidentId,
        version: result.cardVersion,
        member: `card|${result.incidentId}|${result.cardVersion}`,
      });
    }
  });
  if (resolvedNoted.length > 0) await closeUnknownTableIncidents(deps, resolvedNoted);
  if (promised.length > 0) {
    outcome.queued = queuePromised(deps, promised).catch((error: unknown) => {
      // The promises stay recorded; the promise keeper queues them.
      deps.log.warn({ err: (error as Error).message }, "intake jobs not queued yet; their promises are kept");
    });
  }
  return outcome;
}

function toIntakeAlert(
  deps: AlertIntakeDeps,
  alert: AlertEvent,
  resolution: ReturnType<typeof resolveAlertTable>,
): IntakeAlert | undefined {
  if (resolution.table === undefined) {
    deps.log.warn({ alert: alert.alertName, reason: resolution.reason }, "alert ignored: no table");
    return undefined;
  }
  const table = resolution.table;
  const channel = tableSettings(deps.bot, table).channel ?? deps.incidentChannel;
  if (!channel) {
    deps.log.warn({ table }, "alert ignored: no channel (set INCIDENT_CHANNEL or BOT_CONFIG channel)");
    return undefined;
  }
  return {
    repeatKey: `${alert.fingerprint}-${alert.status}-${alert.startsAt}-${alert.endsAt ?? 0}`,
    status: alert.status,
    table,
    channel,
    alertName: alert.alertName,
    fingerprint: alert.fingerprint,
    text:
      alert.status === "firing"
        ? `${alert.alertName} firing${alert.summary ? `: ${alert.summary}` : ""}`
        : `${alert.alertName} resolved`,
  };
}
