// What the services need from the outside world, and all they see of it besides the core.
// Adapters implement these; src/main.ts wires them; tests inject real adapters pointed at
// loopback servers and real Redis (never mocks of our own modules).

import type { Refusal } from "../core/autopilot/decide.js";
import type { TimelineChart } from "../core/chart/timeline.js";
import type { CommandRateDecision } from "../core/command-rate.js";
import type {
  ConnectEvidence,
  ConnectorStatus,
  FlinkJobEvidence,
  FlinkJobSummary,
  MetricPoint,
  SourceGap,
  TableEvidence,
  TableRef,
} from "../core/evidence/model.js";
import type { IncidentHistory } from "../core/history/record.js";
import type { StepId } from "../core/ids.js";
import type { AlertEvent, Incident, TimelineEntry } from "../core/incident/model.js";
import type { DiagnoseJob, RemediationJob, SlackJob } from "../core/jobs.js";
import type { RemediationRecord, Versioned } from "../core/remediation/record.js";
import type { AuditEntry, Notice, ProposalNote } from "../core/remediation/walk.js";
import type { CatalogPick } from "../core/sources/model.js";
import type { AutopilotFate, PolicyStep } from "../core/words/autopilot.js";
import type { UnreadableRecord } from "../core/words/unreadable.js";
import type { ApplyModalView, ProposalView, VerificationView } from "./view-models.js";

export type { DiagnoseJob, RemediationJob } from "../core/jobs.js";

export interface CatalogConfig {
  prefix?: string;
  warehouse?: string;
  defaults: Record<string, string>;
  overrides: Record<string, string>;
}

export interface PropertyCommit {
  /** The table uuid read before the change; sent as an assert-table-uuid requirement. */
  expectedUuid: string;
  set: Record<string, string>;
  remove: string[];
}

/** One page of a catalog listing; `nextPageToken` is absent on the last page. */
export interface ListPage<T> {
  items: T[];
  nextPageToken?: string;
}

export interface CatalogPort {
  /** Where the catalog lives (origin and path, never credentials), for messages people read. */
  readonly url?: string;
  getConfig(): Promise<CatalogConfig>;
  listNamespaces(parent?: string[]): Promise<string[][]>;
  listTables(namespace: string[]): Promise<TableRef[]>;
  /** One page of a listing (the others follow every page); an absent token asks for the first. */
  listNamespacesPage(parent: string[] | undefined, pageToken?: string): Promise<ListPage<string[]>>;
  listTablesPage(namespace: string[], pageToken?: string): Promise<ListPage<TableRef>>;
  loadTable(ref: TableRef): Promise<TableEvidence>;
  commitProperties(ref: TableRef, commit: PropertyCommit): Promise<TableEvidence>;
}

/** What several named sources listed together; `gaps` names those that did not answer. */
export type Listing<T> = T[] & { gaps?: SourceGap[] };

export interface FlinkPort {
  /**
   * With several sources, one that has not listed within `withinMs` is a gap (named in the
   * listing), so what the others listed can still be read before the caller's deadline.
   */
  listJobs(withinMs?: number): Promise<Listing<FlinkJobSummary>>;
  /**
   * Everything about one job; `metricTable` is the table as the sink names it (e.g.
   * iceberg.db.events). `source` picks the Flink source when several are read.
   */
  getJobEvidence(jobId: string, table: TableRef, source?: string): Promise<FlinkJobEvidence>;
}

export interface ConnectorInfo {
  name: string;
  type: string;
  config: Record<string, string>;
  status?: ConnectorStatus;
  /** The cluster listing it, when several are read. */
  cluster?: string;
}

export interface RestartOutcome {
  /** 204: only the connector instance restarted; 202: tasks restarting, with the new status. */
  httpStatus: 202 | 204;
  status?: ConnectorStatus;
}

/** `cluster` picks the Connect cluster when several are read (the one the evidence named). */
export interface ConnectPort {
  /** `withinMs` as for FlinkPort.listJobs. */
  listConnectors(withinMs?: number): Promise<Listing<ConnectorInfo>>;
  getConnectorEvidence(name: string, cluster?: string): Promise<ConnectEvidence>;
  restart(
    name: string,
    options: { includeTasks: boolean; onlyFailed: boolean },
    cluster?: string,
  ): Promise<RestartOutcome>;
  /** Replaces the whole config (PUT semantics); callers merge with the current config first. */
  updateConfig(
    name: string,
    config: Record<string, string>,
    cluster?: string,
  ): Promise<Record<string, string>>;
}

/** A source of one kind with the name it goes by. */
export interface Named<P> {
  name: string;
  port: P;
}

/** Every named catalog, and which one holds a table (BOT_CONFIG's tables/namespaces mapping). */
export interface CatalogDirectory {
  all: Named<CatalogPort>[];
  forTable(table: TableRef | string): Named<CatalogPort> | undefined;
  /** Where a typed or alerted name points, a catalog's name in front of it included (pickCatalog). */
  pick(input: string): (Named<CatalogPort> & Omit<CatalogPick<unknown>, "catalog">) | undefined;
  byName(name: string): Named<CatalogPort> | undefined;
}

export interface PrometheusPort {
  query(promql: string, atMs: number): Promise<{ labels: Record<string, string>; value: number }[]>;
  queryRange(
    promql: string,
    startMs: number,
    endMs: number,
    stepSeconds: number,
  ): Promise<{ labels: Record<string, string>; points: MetricPoint[] }[]>;
}

export interface EvidencePorts {
  /** The catalog (with several named ones: routes each table to the catalog holding it). */
  catalog?: CatalogPort;
  /** Set when more than one catalog, or a named one, is configured. */
  catalogs?: CatalogDirectory;
  flink?: FlinkPort;
  connect?: ConnectPort;
  prometheus?: PrometheusPort;
}

// --- time ------------------------------------------------------------------------------------

/** The one clock services read (simulated in tests and the demo). */
export type Clock = () => number;

// --- incidents -------------------------------------------------------------------------------

export interface IntakeAlert {
  /** Identifies one notification of one alert; a repeat within the window is only noted. */
  repeatKey: string;
  status: "firing" | "resolved";
  table: string;
  channel: string;
  alertName: string;
  /** The timeline line for this alert. */
  text: string;
  /** The sender's alert identity; the incident tracks which of its alerts still fire. */
  fingerprint: string;
}

export type IntakeResult =
  | { kind: "repeat" }
  | {
      kind: "joined";
      incidentId: string;
      /** Set when the card must show a changed alert set. */
      cardVersion?: number;
    }
  | { kind: "opened"; incidentId: string }
  | { kind: "resolved-noted"; incidentId: string; cardVersion?: number }
  | { kind: "nothing-open" };

/** Jobs the intake script promised: an opened incident's card and first diagnosis, or a card edit. */
export type IntakePromise =
  | { kind: "open"; incidentId: string; member: string }
  | { kind: "card"; incidentId: string; version: number; member: string };

export interface OpenResult {
  incident: Incident;
  created: boolean;
}

/** The incident's plain fields a use case sets. */
export type IncidentFields = Partial<
  Pick<
    Incident,
    "state" | "rootTs" | "verdict" | "lastAlertName" | "alertResolvedAt" | "walk" | "tableUnknown"
  >
>;

export interface IncidentStorePort {
  openOrJoin(table: string, channel: string, now: number): Promise<OpenResult>;
  intake(alerts: readonly IntakeAlert[], now: number, repeatTtlSeconds: number): Promise<IntakeResult[]>;
  duePromises(olderThanMs: number, limit?: number): Promise<IntakePromise[]>;
  promisesKept(entries: readonly IntakePromise[]): Promise<void>;
  get(id: string): Promise<Incident | undefined>;
  require(id: string): Promise<Incident>;
  openIncidentFor(table: string): Promise<Incident | undefined>;
  openTables(tables: readonly string[]): Promise<Set<string>>;
  update(id: string, fields: IncidentFields, now: number, bumpCard?: boolean): Promise<number>;
  nextDiagnosis(id: string): Promise<number>;
  close(incident: Incident, state: "resolved" | "stopped", now: number): Promise<number>;
  saveReport(id: string, n: number, report: unknown): Promise<void>;
  /** Diagnosis n's commit timeline, or (n = "recovery") the one drawn after the writer recovered. */
  saveChart(id: string, n: number | "recovery", chart: unknown): Promise<void>;
  getChart(id: string, n: number | "recovery"): Promise<unknown>;
  getReport(id: string, n: number): Promise<unknown>;
  appendTimeline(id: string, entry: TimelineEntry): Promise<void>;
  timeline(id: string): Promise<TimelineEntry[]>;
}

// --- incident history -------------------------------------------------------------------

/** A stored record a listing passed over (core/words/unreadable.ts says so to the person). */
export type { UnreadableRecord };

/** Each table's closed incidents (core/history/record.ts), within the retention window. */
export interface HistoryPort {
  save(record: IncidentHistory): Promise<void>;
  /** Newest first; a record that cannot be read is left out and handed to `onUnreadable`. */
  list(table: string, onUnreadable?: (record: UnreadableRecord) => void): Promise<IncidentHistory[]>;
  get(table: string, incidentId: string): Promise<IncidentHistory | undefined>;
  tablesWithHistory(): Promise<string[]>;
}

// --- Slack and the queues -------------------------------------------------------------------

/** A message the bot owes Slack: everything a Slack job carries but the evidence modal's fill. */
export type SlackMessageRequest = Exclude<SlackJob, { kind: "evidence" }>;

/**
 * The one way a service writes to Slack: the request is recorded in the Slack outbox and its
 * poster sends it, in the incident's order, once. Undefined when its incident is gone.
 */
export interface SlackOutboxPort {
  send(message: SlackMessageRequest): Promise<string | undefined>;
}

/** Diagnoses and slash commands' reads, on BullMQ. */
export interface DiagnosisQueuePort {
  enqueueDiagnose(job: DiagnoseJob): Promise<string>;
}

export interface RemediationScheduler {
  enqueue(job: RemediationJob, delayMs?: number): Promise<string>;
}

// --- remediation -----------------------------------------------------------------------------

/** One message of a walk as data: what the notifier is asked to say, so it can be stored with the walk. */
export type RemediationMessage =
  | { kind: "post-proposal"; name: string; view: ProposalView }
  /** A commit timeline shared in the thread, once under its name. */
  | { kind: "chart"; name: string; chart: TimelineChart; file: TimelineFile }
  | { kind: "update-proposal"; name: string; view: ProposalView; note: ProposalNote; withButtons: boolean }
  | { kind: "upsert-verification"; name: string; view: VerificationView }
  | { kind: "note"; name: string; note: RemediationNote }
  /** An edit of a note posted under `name` (skipped when it was never posted). */
  | { kind: "update-note"; name: string; note: RemediationNote }
  | { kind: "ephemeral"; user: string; notice: Notice }
  /** The status card, edited from the saved walk in the same delivery as the thread's messages. */
  | { kind: "card" }
  /**
   * The postmortem of the incident the change resolves, queued with the resolution itself so a
   * crash at any point after it yields it once; drafted when it is sent (from the history record).
   */
  | { kind: "postmortem"; name: string };

export interface RemediationStorePort {
  get(incidentId: string): Promise<Versioned<RemediationRecord> | undefined>;
  /**
   * Runs a pure `change` on the current record and saves its result atomically (compare-and-set).
   * A store with an outbox saves the change's `messages` in the same atomic step
   * (`messagesRecorded`), so a process dying after the save cannot lose them; otherwise the
   * caller hands them to the notifier after the save.
   */
  mutate<R>(incidentId: string, change: RemediationChange<R>): Promise<Mutated<R>>;
}

/** A pure change of a remediation record: undefined leaves it as it is. */
export type RemediationChange<R> = (
  current: RemediationRecord | undefined,
) => { record: RemediationRecord; result: R; messages?: RemediationMessage[] } | undefined;

export interface Mutated<R> {
  record: RemediationRecord | undefined;
  result?: R;
  changed: boolean;
  messagesRecorded?: boolean;
}

/** One row of a table's audit trail, as /iceberg history lists it. */
export type AuditRow = Omit<AuditEntry, "table" | "action"> & {
  /** A verb people read in the history ("approved", "refused", "applied"…). */
  action: string;
  incidentId?: string;
};

export interface AuditPort {
  /** A machine decision, in the history's words. */
  record(table: string, entry: AuditEntry, incidentId?: string): Promise<void>;
  append(table: string, row: AuditRow): Promise<void>;
}

/** Members of Slack user groups, for the approval policy. */
export interface ApproverDirectory {
  groupMembers(groupId: string): Promise<string[]>;
}

/** A thread note the bot writes about the walk (the notifier owns the words). */
export type RemediationNote =
  | { kind: "apply-failed"; stepTitle: string; detail: string }
  | { kind: "proposal-failed"; stepTitle: string; reason: string; table: string }
  | { kind: "walk-stopped"; table: string; by: string }
  | {
      kind: "walk-stalled";
      table: string;
      afterStepId: StepId;
      terminalTitle?: string;
      /** The last check could not read these: the walk waits for a person, nothing is offered. */
      unseen?: Array<{ source: string; reason: string }>;
    }
  /** The diagnosis repeats an earlier incident of the table (core/history/match.ts). */
  | { kind: "seen-before"; earlier: Extract<SlackJob, { kind: "earlier" }>["earlier"] }
  /** Autopilot's announcement, with Hold and Apply now (`action` is their button value). */
  | (PolicyStep & {
      kind: "autopilot-planned";
      applyAtMs: number;
      action: { incidentId: string; stepId: StepId; proposalId: string };
    })
  /** The announcement once its fate is decided: edited in place, without Hold and Apply now. */
  | (PolicyStep & { kind: "autopilot-settled"; fate: AutopilotFate })
  /** Autopilot left a proposed step to people without announcing it (core/words/autopilot.ts says why). */
  | { kind: "autopilot-refused"; stepId: StepId; refusal: Refusal }
  /** Autopilot left a step it had announced to people (`reason` in core/words/autopilot.ts's words). */
  | { kind: "autopilot-declined"; reason: string }
  | { kind: "autopilot-reverted"; stepId: StepId; next?: StepId; ok: boolean };

/** Thread target of a walk's messages. */
export type RemediationThread = Pick<RemediationRecord, "incidentId" | "channel" | "proposedForDiagnosis">;

/**
 * Everything remediation says in Slack. Messages are named per incident ("proposal-p2",
 * "verify-p2"): posted once under that name, edited in place afterwards.
 */
export interface RemediationNotifier {
  /** Says one of the walk's messages in its thread (the status card excepted: the walk edits it). */
  say(thread: RemediationThread, message: Exclude<RemediationMessage, { kind: "card" }>): Promise<void>;
  /**
   * Fills the placeholder form the receiver opened for an Apply click (`viewId`, its external id)
   * with the form or with why it cannot be approved. False when that view is gone or was never
   * opened (the person closed it, the trigger expired): the caller tells them another way.
   */
  fillApplyForm(viewId: string, content: ApplyFormContent): Promise<boolean>;
}

/** What an Apply click's form turns into once the worker has checked who and when. */
export type ApplyFormContent =
  | { kind: "form"; view: ApplyModalView }
  | { kind: "refused"; notices: Notice[] };

export interface TimelineFile {
  /** File name people see, e.g. "db.events-commits.png". */
  name: string;
  title: string;
  /** Screen-reader text: what the picture shows, in one sentence. */
  altText: string;
}

// --- slash-command rates ---------------------------------------------------------------------

/** Counts one slash command against its person's and table's windows and decides it. */
export interface CommandRatePort {
  take(request: { user: string; table?: string }): Promise<CommandRateDecision>;
}

// --- the incident-opening cap ----------------------------------------------------------------

/** Alerts waiting for the cap on new incidents (adapters/store/deferred-alerts.ts). */
export interface DeferredAlertsPort {
  /**
   * Takes openings from this minute's budget of `perMinute` for these tables, in order; returns
   * the tables granted. A table is counted once a minute, however many notifications name it.
   */
  reserveOpens(tables: readonly string[], perMinute: number): Promise<Set<string>>;
  /** Which of these tables have alerts waiting. */
  deferredTables(tables: readonly string[]): Promise<Set<string>>;
  /**
   * Keeps a table's alerts for later (a resolved one removes its firing one). False when the
   * table is not kept: the waiting set is full (bounded; waiting tables also expire).
   */
  defer(table: string, alerts: readonly AlertEvent[]): Promise<boolean>;
  count(): Promise<number>;
  /** The oldest waiting tables, with their alerts (left in place until released). */
  take(limit: number): Promise<Array<{ table: string; alerts: AlertEvent[] }>>;
  release(table: string): Promise<void>;
  /** True for the first caller of this minute: the cap is announced once a minute, not per alert. */
  claimNote(): Promise<boolean>;
}
