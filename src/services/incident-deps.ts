// What the incident use cases need, as narrow interfaces: the store, the queues and the
// evidence functions are injected so tests wire real ones against local servers.

import type { DiagnoseJob, SlackJob } from "../adapters/queue/jobs.js";
import type { Claims } from "../adapters/store/claims.js";
import type { IncidentStore } from "../adapters/store/incident-store.js";
import type { BotConfig } from "../config.js";
import type { Evidence } from "../core/evidence/model.js";
import type { AuditReport, Report } from "../core/report/schema.js";
import type { EvidencePorts } from "./ports.js";

export interface TableRequest {
  table: string;
  flinkJob?: string;
  connector?: string;
  timeoutMs?: number;
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

export interface Enqueuer {
  enqueueDiagnose(job: DiagnoseJob): Promise<string>;
  enqueueSlack(job: SlackJob): Promise<string | undefined>;
}

export interface LogLike {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface IncidentDeps {
  store: IncidentStore;
  claims: Claims;
  queues: Enqueuer;
  bot: BotConfig;
  incidentChannel?: string;
  now: () => number;
  log: LogLike;
}
