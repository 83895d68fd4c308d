// The incident as the bot tracks it: one open incident per table, with a thread in Slack whose
// root message is a status card. Pure data; the store and the Slack adapter translate it.

// Also the states the status card shows: the Slack view models re-export this list.
export const INCIDENT_STATES = [
  "open",
  "diagnosing",
  "awaiting-approval",
  "applying",
  "verifying",
  "resolved",
  "stalled",
  "stopped",
] as const;
export type IncidentState = (typeof INCIDENT_STATES)[number];

/** One alert as the intake normalises it, whatever the sender (Alertmanager, Grafana). */
export interface AlertEvent {
  source: "alertmanager" | "grafana";
  status: "firing" | "resolved";
  alertName: string;
  labels: Record<string, string>;
  summary?: string;
  /** Epoch ms; the sender's startsAt. */
  startsAt: number;
  /** Epoch ms; absent while firing (Alertmanager sends year 1). */
  endsAt?: number;
  /** Stable id of the alert series (fingerprint, or a hash of the labels when absent). */
  fingerprint: string;
}

export interface Incident {
  id: string;
  table: string;
  state: IncidentState;
  channel: string;
  openedAt: number;
  updatedAt: number;
  /** Root message (status card) of the thread, once posted. */
  rootTs?: string;
  /** Firing alerts that joined the incident (the first one included). */
  alertCount: number;
  lastAlertName?: string;
  /** Set when no alert of the table fires any more; the incident stays open. */
  alertResolvedAt?: number;
  /** How many distinct alerts (by fingerprint) of the table still fire, when alerts were received. */
  firingAlerts?: number;
  /** How many diagnoses were started; the n-th diagnosis job is `diagnose-<id>-<n>`. */
  diagnoses: number;
  verdict?: string;
  /** Bumped on every change the status card shows; card jobs carry it in their id. */
  cardVersion: number;
  resolvedAt?: number;
  /**
   * Set when the first diagnosis found no such table (neither the catalog nor BOT_CONFIG knows it):
   * nothing to diagnose or repair, so the incident closes when its alerts resolve.
   */
  tableUnknown?: boolean;
  /** Playbook walk state, owned by the playbook services (a later phase). */
  walk?: unknown;
}

type TimelineKind = "opened" | "alert" | "alert-resolved" | "diagnosis" | "state" | "note";

export interface TimelineEntry {
  at: number;
  kind: TimelineKind;
  text: string;
}

/** States in which the incident is still open (one per table at a time). */
export function isOpenState(state: IncidentState): boolean {
  return state !== "resolved" && state !== "stopped";
}

/** The state after a diagnosis: a proposed step waits for approval; otherwise the incident stays open. */
export function stateAfterDiagnosis(hasNextStep: boolean): IncidentState {
  return hasNextStep ? "awaiting-approval" : "open";
}
