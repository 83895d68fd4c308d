// Alerts in: each firing alert opens or joins its table's incident; the one that opens it also
// queues the status card and the first diagnosis. Resolved alerts are noted, never resolve:
// an incident ends when the writer's commits resume.

import { tableSettings } from "../config.js";
import { resolveAlertTable } from "../core/incident/alert-table.js";
import type { AlertEvent } from "../core/incident/model.js";
import type { IncidentDeps } from "./incident-deps.js";

export interface AlertIntakeDeps extends IncidentDeps {
  /** Tables the catalog knows (cached by the caller); config tables are always known. */
  knownTables?: () => Promise<string[]>;
}

export interface AlertOutcome {
  accepted: number;
  ignored: number;
  /** Incidents opened by this call. */
  opened: string[];
}

/** Alerts seen within this window are taken as repeats (Alertmanager re-sends, a second bot replica). */
const REPEAT_WINDOW_SECONDS = 3600;

export async function acceptAlerts(deps: AlertIntakeDeps, alerts: AlertEvent[]): Promise<AlertOutcome> {
  const configured = Object.keys(deps.bot.tables);
  let fromCatalog: string[] | undefined;
  const outcome: AlertOutcome = { accepted: 0, ignored: 0, opened: [] };
  for (const alert of alerts) {
    // Config first: the catalog is asked only for names config does not know, so a slow or
    // unreachable catalog never delays alerts about configured tables.
    let known = configured;
    const first = resolveAlertTable(alert.labels, deps.bot, configured);
    if ((first.table === undefined || !configured.includes(first.table)) && deps.knownTables) {
      fromCatalog ??= await deps.knownTables().catch(() => []);
      known = [...configured, ...fromCatalog];
    }
    const handled = await acceptOne(deps, alert, known);
    if (handled === "ignored") outcome.ignored++;
    else {
      outcome.accepted++;
      if (handled !== "noted") outcome.opened.push(handled);
    }
  }
  return outcome;
}

async function acceptOne(
  deps: AlertIntakeDeps,
  alert: AlertEvent,
  known: string[],
): Promise<"ignored" | "noted" | string> {
  const resolution = resolveAlertTable(alert.labels, deps.bot, known);
  if (resolution.table === undefined) {
    deps.log.warn({ alert: alert.alertName, reason: resolution.reason }, "alert ignored: no table");
    return "ignored";
  }
  const table = resolution.table;
  const channel = tableSettings(deps.bot, table).channel ?? deps.incidentChannel;
  if (!channel) {
    deps.log.warn({ table }, "alert ignored: no channel (set INCIDENT_CHANNEL or BOT_CONFIG channel)");
    return "ignored";
  }
  const repeatKey = `${alert.fingerprint}-${alert.status}-${alert.startsAt}-${alert.endsAt ?? 0}`;
  if (!(await deps.claims.firstTime("alert", repeatKey, REPEAT_WINDOW_SECONDS))) return "noted";
  try {
    return alert.status === "firing"
      ? await onFiring(deps, alert, table, channel)
      : await onResolved(deps, alert, table);
  } catch (error) {
    // Let the sender's retry count: forget we saw it.
    await deps.claims.forget("alert", repeatKey).catch(() => {});
    throw error;
  }
}

async function onFiring(deps: AlertIntakeDeps, alert: AlertEvent, table: string, channel: string) {
  const now = deps.now();
  const { incident, created } = await deps.store.openOrJoin(table, channel, now);
  await deps.store.appendTimeline(incident.id, {
    at: now,
    kind: "alert",
    text: `${alert.alertName} firing${alert.summary ? `: ${alert.summary}` : ""}`,
  });
  if (!created) return "noted";
  await deps.store.update(incident.id, { lastAlertName: alert.alertName }, now);
  await deps.queues.enqueueSlack({ kind: "root", incidentId: incident.id });
  const n = await deps.store.nextDiagnosis(incident.id);
  await deps.queues.enqueueDiagnose({ kind: "incident", incidentId: incident.id, n });
  deps.log.info({ incident: incident.id, table }, "incident opened");
  return incident.id;
}

async function onResolved(deps: AlertIntakeDeps, alert: AlertEvent, table: string) {
  const incident = await deps.store.openIncidentFor(table);
  if (!incident) return "ignored";
  const now = deps.now();
  await deps.store.appendTimeline(incident.id, {
    at: now,
    kind: "alert-resolved",
    text: `${alert.alertName} resolved`,
  });
  const version = await deps.store.update(incident.id, { alertResolvedAt: now }, now, true);
  await deps.queues.enqueueSlack({ kind: "card", incidentId: incident.id, version });
  return "noted";
}
