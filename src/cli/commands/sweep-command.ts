// `sweep`: every table of the catalog (or of one namespace), graded with the audit and diagnosis
// core, ranked worst first by the health score (docs/sweep.md).

import { renderSweepMarkdown, renderSweepText } from "../../adapters/render/sweep-text.js";
import { secretValues } from "../../config.js";
import { parseTableName } from "../../core/table-name.js";
import { scrubAllForms } from "../../util/secret-forms.js";
import { oneOf, parseCall, wholeNumber } from "../args.js";
import { loadCliConfig, SOURCE_FLAGS, sparkCatalogFlag } from "../config-overlay.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { type CommandCall, useColor } from "../io.js";

const FORMATS = ["text", "json", "markdown"] as const;

export const OPTIONS = {
  format: { type: "string" },
  namespace: { type: "string" },
  limit: { type: "string" },
  concurrency: { type: "string" },
  ...SOURCE_FLAGS,
} as const;

export async function runSweepCommand(call: CommandCall): Promise<ExitCodeValue> {
  const { io } = call;
  const { values } = parseCall(call, OPTIONS);
  const format = oneOf("sweep", "--format", values.format, FORMATS);
  const limit = wholeNumber("sweep", "--limit", values.limit, { min: 1, max: 1_000_000 });
  const concurrency = wholeNumber("sweep", "--concurrency", values.concurrency, { min: 1, max: 64 }) ?? 4;
  let under: string[] | undefined;
  if (values.namespace !== undefined) {
    // The namespace uses the table-name alphabet; checked as if it held a table.
    under = parseTableName(`${values.namespace.trim()}._`).namespace;
  }
  const sparkCatalog = sparkCatalogFlag("sweep", values["spark-catalog"]);
  const config = loadCliConfig(call, values);
  const { createEvidencePorts } = await import("../../adapters/evidence/from-config.js");
  const { runSweep } = await import("../../services/sweep/run-sweep.js");
  const { loadPlaybooks } = await import("../../adapters/playbooks/files.js");
  const { playbooks } = await loadPlaybooks();
  const ports = createEvidencePorts(config, { timeoutMs: config.sourceTimeoutMs });
  const report = await runSweep(ports, io.now ?? Date.now, {
    under,
    playbooks,
    concurrency,
    limit,
    bot: config.bot,
    timeoutMs: values["timeout-ms"] === undefined ? undefined : config.sourceTimeoutMs,
    catalogName: sparkCatalog,
  });
  const text =
    format === "json"
      ? `${JSON.stringify(report, null, 2)}\n`
      : format === "markdown"
        ? renderSweepMarkdown(report)
        : renderSweepText(report, { color: useColor(io) });
  io.stdout.write(scrubAllForms(text, secretValues(config)));
  return report.failingTables > 0 || report.errors.length > 0 || report.skipped
    ? ExitCode.NeedsAction
    : ExitCode.Ok;
}
