// One table of a sweep: read its evidence once, then grade it with the same core as `audit` and
// `diagnose` (both reports checked against their public schemas), and fold them into its health.

import { audit } from "../../core/audit/audit.js";
import { diagnose } from "../../core/diagnosis/diagnose.js";
import type { Playbook } from "../../core/remediation/schema.js";
import type { AuditReport, Report } from "../../core/report/schema.js";
import { AuditReportSchema, ReportSchema } from "../../core/report/schema.js";
import type { BotConfig } from "../../core/settings.js";
import { tableSettings } from "../../core/settings.js";
import { type TableHealth, tableHealth } from "../../core/sweep/health.js";
import { formatTableName } from "../../core/table-name.js";
import { CodedError, ErrorCode } from "../../errors.js";
import { investigate } from "../investigate/investigate.js";
import type { EvidencePorts } from "../ports.js";
import { requireSomeEvidence, validateReport } from "../report-checks.js";

export interface GradeOptions {
  bot?: BotConfig;
  /** The loaded playbooks: the next step and its change are built from them. */
  playbooks: readonly Playbook[];
  timeoutMs?: number;
  catalogName?: string;
  /** The named catalog the table was listed in (BOT_CONFIG sources.catalogs). */
  catalogSource?: string;
}

export interface Graded {
  health: TableHealth;
  audit: AuditReport;
  diagnosis: Report;
}

export async function gradeTable(
  ports: EvidencePorts,
  table: string,
  now: () => number,
  options: GradeOptions,
): Promise<Graded> {
  const settings = options.bot ? tableSettings(options.bot, table) : undefined;
  const evidence = await investigate(
    ports,
    {
      table,
      flinkJob: settings?.flinkJob,
      connector: settings?.connector,
      timeoutMs: options.timeoutMs,
      ...(options.catalogSource ? { catalog: options.catalogSource } : {}),
    },
    now,
  );
  requireSomeEvidence(evidence);
  const catalog = evidence.sources.catalog;
  if (catalog?.status !== "ok") {
    // Like `audit`: without the table's metadata there is nothing to grade, and no grade must
    // pass for a clean one. The catalog answered the listing moments ago, so this is transient.
    throw new CodedError(ErrorCode.NoEvidence, `The catalog did not answer for ${table}`, {
      hint: "Check that the catalog is reachable; the table is graded again on the next sweep.",
      retryable: true,
      details: { error: catalog?.error },
    });
  }
  const at = now();
  const naming = { tableName: formatTableName(evidence.table), catalogName: options.catalogName };
  const auditReport = validateReport(AuditReportSchema, audit(evidence, at, naming), "audit");
  const diagnosis = validateReport(
    ReportSchema,
    diagnose(evidence, at, { ...naming, playbooks: options.playbooks }),
    "diagnosis",
  );
  const health = tableHealth(naming.tableName, auditReport, diagnosis);
  if (options.catalogSource) health.catalog = options.catalogSource;
  return { health, audit: auditReport, diagnosis };
}
