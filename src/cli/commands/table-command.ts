// `diagnose <table>` and `audit <table>`: flags -> config -> evidence ports -> report -> output.

import "./zod-without-jit.js";
import "./wasm-without-tier-up.js";
import type { ChartFile } from "../../adapters/render/describe.js";
import { type Config, secretValues } from "../../config.js";
import type { Evidence } from "../../core/evidence/model.js";
import { tableSettings } from "../../core/settings.js";
import { parseTableName } from "../../core/table-name.js";
import { CodedError, ErrorCode } from "../../errors.js";
import { scrubAllForms } from "../../util/secret-forms.js";
import { oneOf, parseCall, usageError } from "../args.js";
import { loadCliConfig, SOURCE_FLAGS, sparkCatalogFlag } from "../config-overlay.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { type CliIo, type CommandCall, useColor, writeFileOf, writeLine } from "../io.js";

const FORMATS = ["text", "json", "markdown"] as const;

export const OPTIONS = {
  format: { type: "string" },
  chart: { type: "string" },
  ...SOURCE_FLAGS,
  "flink-job": { type: "string" },
  connector: { type: "string" },
} as const;

export async function runTableCommand(call: CommandCall): Promise<ExitCodeValue> {
  const { command, io } = call;
  const { values, positionals } = parseCall(call, OPTIONS, ["table"]);
  const [table = ""] = positionals;
  const format = oneOf(command, "--format", values.format, FORMATS);
  const flinkJob = values["flink-job"];
  if (flinkJob !== undefined && !/^[0-9a-f]{32}$/.test(flinkJob)) {
    throw usageError(command, "--flink-job must be a Flink job id: 32 lowercase hexadecimal characters.");
  }
  const connector = values.connector;
  if (connector !== undefined && !/^[A-Za-z0-9._-]{1,249}$/.test(connector)) {
    throw usageError(command, "--connector must be a connector name (letters, digits, '.', '_' or '-').");
  }
  const sparkCatalog = sparkCatalogFlag(command, values["spark-catalog"]);
  const chartPath = values.chart;
  if (chartPath !== undefined && (command !== "diagnose" || chartPath.trim() === "")) {
    throw usageError(
      command,
      command === "diagnose" ? "--chart needs a file name." : "--chart is for diagnose only.",
    );
  }
  // Refuse hostile names before any client exists, so nothing is ever sent for them.
  guardTableArgument(table);

  const config = loadCliConfig(call, values);
  requireSomeSource(command, config);

  const settings = tableSettings(config.bot, table.trim());
  const request = {
    table: table.trim(),
    flinkJob: flinkJob ?? settings.flinkJob,
    connector: connector ?? settings.connector,
    // --timeout-ms bounds each source's whole answer too; otherwise investigate's default applies.
    timeoutMs: values["timeout-ms"] === undefined ? undefined : config.sourceTimeoutMs,
  };
  // Clients and rules load only once the arguments are known to be good; a command's modules load
  // side by side.
  const loadingClients = import("../../adapters/evidence/from-config.js");
  const portsOf = ({ createEvidencePorts }: Awaited<typeof loadingClients>) =>
    createEvidencePorts(config, { timeoutMs: config.sourceTimeoutMs });
  const now = io.now ?? Date.now;
  const color = useColor(io);

  // Upstream text ends up in reports; a secret echoed by a misbehaving server must not reach stdout.
  const print = (text: string) => io.stdout.write(scrubAllForms(text, secretValues(config)));

  if (command === "diagnose") {
    const [clients, { diagnoseTable }, { loadPlaybooks }] = await Promise.all([
      loadingClients,
      import("../../services/diagnose-table.js"),
      import("../../adapters/playbooks/files.js"),
    ]);
    // Read while the sources answer, as is the renderer (JSON needs none).
    const playbooks = loadPlaybooks().then((set) => set.playbooks);
    const rendering = format === "json" ? undefined : import("../../adapters/render/report.js");
    const { report, evidence } = await diagnoseTable(portsOf(clients), request, now, {
      catalogName: sparkCatalog,
      playbooks,
    });
    const chart = chartPath ? await writeChart(io, chartPath, evidence, now()) : undefined;
    const drawn = chart ? { chart } : {};
    const render = await rendering;
    print(
      !render
        ? `${JSON.stringify(report, null, 2)}\n`
        : format === "markdown"
          ? render.renderReportMarkdown(report, drawn)
          : render.renderReportText(report, { color, ...drawn }),
    );
    return report.verdict === "healthy" ? ExitCode.Ok : ExitCode.NeedsAction;
  }
  const [clients, { auditTable }] = await Promise.all([
    loadingClients,
    import("../../services/audit-table.js"),
  ]);
  const rendering = format === "json" ? undefined : import("../../adapters/render/audit.js");
  const { report } = await auditTable(portsOf(clients), request, now, { catalogName: sparkCatalog });
  const render = await rendering;
  print(
    !render
      ? `${JSON.stringify(report, null, 2)}\n`
      : format === "markdown"
        ? render.renderAuditMarkdown(report)
        : render.renderAuditText(report, { color }),
  );
  return report.checks.some((check) => check.status === "fail") ? ExitCode.NeedsAction : ExitCode.Ok;
}

/**
 * Draws the commit timeline to `path`. A picture that cannot be drawn or written is reported on
 * stderr and never costs the diagnosis itself.
 */
async function writeChart(
  io: CliIo,
  path: string,
  evidence: Evidence,
  now: number,
): Promise<ChartFile | undefined> {
  try {
    const [{ buildTimeline, describeTimeline }, { timelineSpec }, { renderPng }] = await Promise.all([
      import("../../core/chart/timeline.js"),
      import("../../core/chart/timeline-spec.js"),
      import("../../adapters/chart/render-png.js"),
    ]);
    const chart = buildTimeline(evidence, now);
    const rendered = await renderPng(timelineSpec(chart));
    writeFileOf(io)(path, rendered.png);
    return { path, width: rendered.width, height: rendered.height, altText: describeTimeline(chart) };
  } catch (error) {
    writeLine(io.stderr, `The commit timeline was not written to ${path}: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * Accepts the forms investigate() resolves (db.events, catalog.db.events, iceberg_db_events) and
 * nothing else: every level uses the table-name alphabet.
 */
function guardTableArgument(input: string): void {
  const trimmed = input.trim();
  if (trimmed.includes(".") || trimmed.length === 0 || trimmed.length > 255) {
    parseTableName(trimmed);
    return;
  }
  // A single level (the metric form): check its characters with the same rules and messages.
  if (!/^[A-Za-z0-9_-]+$/.test(trimmed)) parseTableName(`_.${trimmed}`);
}

function requireSomeSource(command: string, config: Readonly<Config>): void {
  const { catalogs, flink, connect, prometheus } = config.sources;
  if (command === "audit" && catalogs.length === 0) {
    throw new CodedError(
      ErrorCode.ConfigInvalid,
      "The audit reads the table from the Iceberg catalog, which is not configured.",
      {
        hint: "Pass --catalog-url or set ICEBERG_CATALOG_URL.",
      },
    );
  }
  if (catalogs.length + flink.length + connect.length + prometheus.length > 0) return;
  throw new CodedError(ErrorCode.ConfigInvalid, "No evidence source is configured.", {
    hint: "Pass --catalog-url (and --flink-url or --connect-url), or set ICEBERG_CATALOG_URL, FLINK_REST_URL and CONNECT_REST_URL.",
  });
}
