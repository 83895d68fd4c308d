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
import { deferredNote } from "../core/incident/open-cap.js";
import { tableSettings } from "../core/settings.js";
import type { IncidentDeps } from "./incident/deps.js";
import { closeUnknownTableIncidents } from "./incident/diagnosis.js";
import { queuePromised } from "./intake-promises.js";
import type { DeferredAlertsPort, IntakeAlert, IntakePromise } from "./ports.js";

export interface AlertIntakeDeps extends IncidentDeps {
  /** Tables the catalog knows (cached by the caller); config tables are always known. */
  knownTables?: () => Promise<string[]>;
  /** Alerts over the cap on new incidents wait here; without it every alert opens at once. */
  deferred?: DeferredAlertsPort;
}

export interface AlertOutcome {
  accepted: number;
  /** Alerts kept for later: their tables' incidents open as the cap allows. */
  deferred?: number;
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

export async function acceptAlerts(
  deps: AlertIntakeDeps,
  alerts: AlertEvent[],
  /** Set when draining what waited: its openings are already counted against the minute. */
  options: { capped?: boolean } = {},
): Promise<AlertOutcome> {
  const configured = Object.keys(deps.bot.tables);
  let fromCatalog: string[] | undefined;
  const outcome: AlertOutcome = { accepted: 0, ignored: 0, opened: [], queued: Promise.resolve() };
  let batch: IntakeAlert[] = [];
  const events: AlertEvent[] = [];
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
    if (item) {
      batch.push(item);
      events.push(alert);
    } else outcome.ignored++;
  }
  if (deps.deferred && options.capped !== false)
    batch = await holdOverCap(deps, deps.deferred, batch, events, outcome);
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

/**
 * The cap on new incidents: tables with no open incident beyond what this notification and this
 * minute may open keep their alerts in Redis (opened later by drainDeferredAlerts), and one note
 * in the incident channel says how many wait. Alerts of a table already waiting wait with it, so
 * its alerts keep their order. Returns the alerts to take now.
 */
async function holdOverCap(
  deps: AlertIntakeDeps,
  deferred: DeferredAlertsPort,
  batch: IntakeAlert[],
  events: AlertEvent[],
  outcome: AlertOutcome,
): Promise<IntakeAlert[]> {
  const cap = deps.bot.incidentCap;
  const tables = [...new Set(batch.map((a) => a.table))];
  const [open, waiting] = await Promise.all([deps.store.openTables(tables), deferred.deferredTables(tables)]);
  const firingTables = new Set(batch.filter((a) => a.status === "firing").map((a) => a.table));
  const fresh = tables.filter((t) => !open.has(t) && !waiting.has(t) && firingTables.has(t));
  let later: string[] = [];
  if (fresh.length > 0) {
    const granted = await deferred.reserveOpens(fresh.slice(0, cap.perRequest), cap.perMinute);
    later = fresh.filter((table) => !granted.has(table));
  }
  const hold = new Set([...later, ...[...waiting].filter((t) => !open.has(t))]);
  if (hold.size === 0) return batch;
  const now: IntakeAlert[] = [];
  const byTable = new Map<string, AlertEvent[]>();
  batch.forEach((item, i) => {
    if (!hold.has(item.table)) {
      now.push(item);
      return;
    }
    const list = byTable.get(item.table) ?? [];
    list.push(events[i]!);
    byTable.set(item.table, list);
  });
  let kept = 0;
  let dropped = 0;
  for (const [table, list] of byTable) {
    if (await deferred.defer(table, list)) kept += list.length;
    else dropped += list.length;
  }
  outcome.deferred = kept;
  // Kept in Redis: taken, as far as the sender is concerned. Past the bound on waiting tables the
  // alerts are dropped: the sender repeats firing alerts, which find room as the cap opens tables.
  outcome.accepted += kept;
  outcome.ignored += dropped;
  if (dropped > 0) deps.log.warn({ dropped }, "too many tables wait for the incident cap; alerts dropped");
  if (later.length > 0) {
    const channel = tableSettings(deps.bot, later[0]!).channel ?? deps.incidentChannel;
    deps.log.warn({ deferred: later.length, cap }, "incident cap reached; tables wait");
    // A storm sends many notifications a minute: one note says the cap is reached, not one each.
    if (channel && (await deferred.claimNote())) {
      await deps.slack.send({
        kind: "channel-note",
        channel,
        key: `cap-${deps.now()}-${later[0]}`,
        text: deferredNote(later.length, cap),
      });
    }
  }
  return now;
}

/**
 * Opens what waited for the cap, oldest first, as far as this minute's budget allows; run every
 * few seconds by a worker (the intake promise keeper). Returns how many tables were opened.
 */
export async function drainDeferredAlerts(deps: AlertIntakeDeps): Promise<number> {
  const deferred = deps.deferred;
  if (!deferred) return 0;
  const waiting = await deferred.count();
  if (waiting === 0) return 0;
  const oldest = await deferred.take(Math.min(waiting, deps.bot.incidentCap.perRequest));
  const granted = await deferred.reserveOpens(
    oldest.map((w) => w.table),
    deps.bot.incidentCap.perMinute,
  );
  const due = oldest.filter((w) => granted.has(w.table));
  for (const { table, alerts } of due) {
    if (alerts.length > 0) await acceptAlerts(deps, alerts, { capped: false });
    await deferred.release(table);
  }
  return due.length;
}
