// `discover [--config FILE] [--format text|json]`: lists the Flink JobManagers the Flink
// Kubernetes Operator runs, once, as the bot's discovery sees them with its own credentials and
// RBAC, so an operator can check the `kubernetes` settings and the Role before relying on them.

import { FlinkDiscovery } from "../../adapters/evidence/kubernetes/discovery.js";
import { CodedError, ErrorCode } from "../../errors.js";
import { parseCall, usageError } from "../args.js";
import { loadCliConfig } from "../config-overlay.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { type CommandCall, readFileOf, writeLine } from "../io.js";

export const OPTIONS = {
  config: { type: "string" },
  format: { type: "string" },
} as const;

export async function runDiscoverCommand(call: CommandCall): Promise<ExitCodeValue> {
  const { io } = call;
  const { values } = parseCall(call, OPTIONS);
  const format = values.format ?? "text";
  if (format !== "text" && format !== "json") throw usageError("discover", "--format must be text or json.");
  const readFile = readFileOf(io);
  const config = loadCliConfig(call, values);
  const settings = config.bot.kubernetes;
  if (!settings) {
    throw new CodedError(
      ErrorCode.ConfigInvalid,
      "BOT_CONFIG has no kubernetes section: nothing to discover.",
      {
        hint: "Add kubernetes: { namespaces: [...] } to BOT_CONFIG (docs/kubernetes.md).",
      },
    );
  }
  const discovery = new FlinkDiscovery({
    settings,
    inCluster: config.kubernetesService ? { service: config.kubernetesService, readFile } : { readFile },
    readFile,
    timeoutMs: config.sourceTimeoutMs,
    now: io.now,
  });
  const snapshot = await discovery.refresh().finally(() => discovery.stop());
  // Nothing listed at all: the first failure decides the exit code (2 for RBAC or credentials).
  const first = snapshot.errors[0]?.error;
  if (first && snapshot.sources.length === 0 && snapshot.errors.length === settings.namespaces.length) {
    for (const { error } of snapshot.errors.slice(1)) writeLine(io.stderr, `error: ${error.message}`);
    throw first;
  }
  if (format === "json") {
    const errors = snapshot.errors.map(({ namespace, error }) => ({
      namespace,
      code: error.code,
      message: error.message,
      hint: error.hint,
    }));
    io.stdout.write(
      `${JSON.stringify({ sources: snapshot.sources, errors, skipped: snapshot.skipped }, null, 2)}\n`,
    );
  } else {
    for (const source of snapshot.sources) {
      writeLine(
        io.stdout,
        `${source.name}  ${source.mode}  ${source.restUrl}  ${source.lifecycleState ?? "-"}`,
      );
      for (const job of source.jobs) {
        const id = job.pending ? "pending (no job id yet)" : job.jobId;
        writeLine(io.stdout, `  ${job.resource}  ${job.jobName ?? "-"}  ${id}  ${job.state ?? "-"}`);
      }
    }
    if (snapshot.sources.length === 0) writeLine(io.stdout, "No FlinkDeployment or FlinkSessionJob found.");
    for (const s of snapshot.skipped) writeLine(io.stderr, `skipped ${s.resource}: ${s.reason}`);
    for (const { error } of snapshot.errors) {
      writeLine(io.stderr, `error: ${error.message}`);
      if (error.hint) writeLine(io.stderr, `hint: ${error.hint}`);
    }
  }
  return snapshot.errors.length > 0 ? ExitCode.NeedsAction : ExitCode.Ok;
}
