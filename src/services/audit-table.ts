// Use case: gather evidence for one table and grade it against the concurrent-writers checklist.

import { audit } from "../core/audit/audit.js";
import type { Evidence } from "../core/evidence/model.js";
import { type AuditReport, AuditReportSchema } from "../core/report/schema.js";
import { formatTableName } from "../core/table-name.js";
import { CodedError, ErrorCode } from "../errors.js";
import { type InvestigateRequest, investigate } from "./investigate/investigate.js";
import type { EvidencePorts } from "./ports.js";
import { requireSomeEvidence, validateReport } from "./report-checks.js";

export interface AuditTableOptions {
  /** Catalog name used in statements a person copies (e.g. `CALL <catalog>.system...`). */
  catalogName?: string;
}

export async function auditTable(
  ports: EvidencePorts,
  request: InvestigateRequest,
  now: () => number,
  options: AuditTableOptions = {},
): Promise<{ report: AuditReport; evidence: Evidence }> {
  const evidence = await investigate(ports, request, now);
  requireSomeEvidence(evidence);
  // Every check reads table properties or snapshots: without the catalog there is nothing to grade,
  // and an empty checklist must not pass for a clean one.
  const catalog = evidence.sources.catalog;
  if (catalog?.status !== "ok") {
    const unavailable = catalog?.status === "unavailable";
    const reason = unavailable
      ? `it did not answer (${catalog.error ?? "no reason given"})`
      : "it is not configured";
    throw new CodedError(
      unavailable ? ErrorCode.NoEvidence : ErrorCode.ConfigInvalid,
      `The audit needs the Iceberg catalog, but ${reason}.`,
      {
        hint: "Pass --catalog-url or set ICEBERG_CATALOG_URL, and check that the catalog is reachable from here.",
      },
    );
  }
  const report = audit(evidence, now(), {
    tableName: formatTableName(evidence.table),
    catalogName: options.catalogName,
  });
  return { report: validateReport(AuditReportSchema, report, "audit"), evidence };
}
