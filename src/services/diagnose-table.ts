// Use case: gather evidence for one table and turn it into the diagnosis report. The report is
// checked against the public schema before anyone sees it, so a rule bug cannot leak a report that
// breaks consumers of the JSON contract.

import { diagnose } from "../core/diagnosis/diagnose.js";
import type { Evidence } from "../core/evidence/model.js";
import type { IncidentHistory } from "../core/history/record.js";
import type { Playbook } from "../core/remediation/schema.js";
import { type Report, ReportSchema } from "../core/report/schema.js";
import { formatTableName } from "../core/table-name.js";
import { type InvestigateRequest, investigate } from "./investigate/investigate.js";
import type { EvidencePorts } from "./ports.js";
import { requireSomeEvidence, validateReport } from "./report-checks.js";

export interface DiagnoseTableOptions {
  /** Catalog name used in statements a person copies (e.g. `CALL <catalog>.system...`). */
  catalogName?: string;
  /**
   * The playbooks; the next step's change is built from them. A command line that starts reading
   * them gives the promise, so they are parsed while the sources are answering.
   */
  playbooks: readonly Playbook[] | Promise<readonly Playbook[]>;
  /** The table's earlier incidents: what fixed the same failure is proposed first. */
  history?: readonly IncidentHistory[];
}

export async function diagnoseTable(
  ports: EvidencePorts,
  request: InvestigateRequest,
  now: () => number,
  options: DiagnoseTableOptions,
): Promise<{ report: Report; evidence: Evidence }> {
  const investigating = investigate(ports, request, now);
  // Its failure is reported below, after a playbook problem (which comes first, as it did when
  // the playbooks were read before the sources were asked).
  investigating.catch(() => {});
  const playbooks = await options.playbooks;
  const evidence = await investigating;
  requireSomeEvidence(evidence);
  const report = diagnose(evidence, now(), {
    tableName: formatTableName(evidence.table),
    catalogName: options.catalogName,
    playbooks,
    ...(options.history ? { history: options.history } : {}),
  });
  return { report: validateReport(ReportSchema, report, "diagnosis"), evidence };
}
