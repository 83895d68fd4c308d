// What the services need from the outside world. Adapters implement these; tests inject real
// adapters pointed at loopback servers (never mocks of our own modules).

import type { TimelineChart } from "../core/chart/timeline.js";
import type {
  ConnectEvidence,
  ConnectorStatus,
  FlinkJobEvidence,
  FlinkJobSummary,
  MetricPoint,
  TableEvidence,
  TableRef,
} from "../core/evidence/model.js";

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

export interface FlinkPort {
  listJobs(): Promise<FlinkJobSummary[]>;
  /** Everything about one job; `metricTable` is the table as the sink names it (e.g. iceberg.db.events). */
  getJobEvidence(jobId: string, table: TableRef): Promise<FlinkJobEvidence>;
}

export interface ConnectorInfo {
  name: string;
  type: string;
  config: Record<string, string>;
  status?: ConnectorStatus;
}

export interface RestartOutcome {
  /** 204: only the connector instance restarted; 202: tasks restarting, with the new status. */
  httpStatus: 202 | 204;
  status?: ConnectorStatus;
}

export interface ConnectPort {
  listConnectors(): Promise<ConnectorInfo[]>;
  getConnectorEvidence(name: string): Promise<ConnectEvidence>;
  restart(name: string, options: { includeTasks: boolean; onlyFailed: boolean }): Promise<RestartOutcome>;
  /** Replaces the whole config (PUT semantics); callers merge with the current config first. */
  updateConfig(name: string, config: Record<string, string>): Promise<Record<string, string>>;
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
  catalog?: CatalogPort;
  flink?: FlinkPort;
  connect?: ConnectPort;
  prometheus?: PrometheusPort;
}

/** Where a picture goes: an incident's thread. */
export interface ThreadTarget {
  channel: string;
  threadTs: string;
}

export interface TimelineFile {
  /** File name people see, e.g. "db.events-commits.png". */
  name: string;
  title: string;
  /** Screen-reader text: what the picture shows, in one sentence. */
  altText: string;
}

/**
 * Draws a commit timeline and shares it in a thread (Slack: files.getUploadURLExternal, the bytes,
 * then files.completeUploadExternal with the channel and thread). Kept as a port so whatever
 * carries thread messages out can carry pictures the same way.
 */
export interface TimelinePoster {
  post(target: ThreadTarget, chart: TimelineChart, file: TimelineFile): Promise<{ fileId: string }>;
}
