// What the incident use cases need, as narrow interfaces: the store, the diagnosis queue, the Slack outbox and the
// evidence functions are injected so tests wire real ones against local servers.

import type { Evidence } from "../../core/evidence/model.js";
import type { IncidentHistory } from "../../core/history/record.js";
import type { AuditReport, Report } from "../../core/report/schema.js";
import type { BotConfig } from "../../core/settings.js";
import type { DiagnosisQueuePort, EvidencePorts, IncidentStorePort, SlackOutboxPort } from "../ports.js";

export interface TableRequest {
  table: string;
  flinkJob?: string;
  connector?: string;
  timeoutMs?: number;
  /** The table's earlier incidents, for the diagnosis to propose what fixed the same failure. */
  history?: readonly IncidentHistory[];
}

export type DiagnoseFn = (
  ports: EvidencePorts,
  request: TableRequest,
  now: () => number,
) => Promise<{ report: Report; evidence?: Evidence }>;
export type AuditFn = (
  ports: EvidencePorts,
  request: TableRequest,
  now: () => number,
) => Promise<{ report: AuditReport }>;

export interface LogLike {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface IncidentDeps {
  store: IncidentStorePort;
  /** Diagnoses and command reads (BullMQ). */
  queues: DiagnosisQueuePort;
  /** Everything said in Slack (the outbox). */
  slack: SlackOutboxPort;
  bot: BotConfig;
  incidentChannel?: string;
  now: () => number;
  log: LogLike;
}
