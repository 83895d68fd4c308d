// `config check [--config FILE] [--role start|serve|worker] [--probe-timeout-ms N] [--offline]`:
// every problem the configuration has, in one pass, without starting anything: the variables,
// BOT_CONFIG with file:line, the variables and files it names, what the role needs; then each
// evidence source is asked once with a short timeout, and one that does not answer is a warning
// (it may be down for now). Exit 2 when there is an error, 0 otherwise.

import { sendRaw, tlsAgent } from "../../adapters/evidence/http.js";
import { loadPlaybooks } from "../../adapters/playbooks/files.js";
import type { BotRole } from "../../bot/options.js";
import { type ConfigInspection, redactUrl } from "../../config.js";
import { policyStepLines } from "../../core/autopilot/policy.js";
import type { SourceName } from "../../core/ids.js";
import type { HttpSourceSpec, SourceSpecs } from "../../core/sources/model.js";
import { asCodedError, ErrorCode } from "../../errors.js";
import { MILLISECONDS, parseCall, usageError, wholeNumber } from "../args.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { type CommandCall, writeLine } from "../io.js";
import { inspectRoleConfig } from "./bot-command.js";

export const OPTIONS = {
  config: { type: "string" },
  role: { type: "string" },
  "probe-timeout-ms": { type: "string" },
  offline: { type: "boolean" },
} as const;

const ROLES: readonly BotRole[] = ["start", "serve", "worker"];
const DEFAULT_PROBE_TIMEOUT_MS = 2000;
const PROBE_RANGE = { min: 100, max: 30_000 } as const;

export async function runConfigCommand(call: CommandCall): Promise<ExitCodeValue> {
  const { io } = call;
  const { values, positionals } = parseCall(call, OPTIONS, ["check"]);
  const [action] = positionals;
  if (action !== "check")
    throw usageError("config", `Unknown action ${JSON.stringify(action?.slice(0, 40))}; use check.`);
  const role = (values.role ?? "start") as BotRole;
  if (!ROLES.includes(role)) throw usageError("config", "--role must be start, serve or worker.");
  const timeoutMs =
    wholeNumber("config", "--probe-timeout-ms", values["probe-timeout-ms"], PROBE_RANGE, MILLISECONDS) ??
    DEFAULT_PROBE_TIMEOUT_MS;

  const inspection = inspectRoleConfig(role, io, values);
  const problems = [...inspection.problems, ...(await autopilotStepProblems(inspection))];
  for (const problem of problems) writeLine(io.stdout, `error: ${problem}`);
  const warnings = values.offline ? [] : await probeSources(inspection.sources, timeoutMs);
  for (const warning of warnings) writeLine(io.stdout, `warning: ${warning}`);
  const errors = problems.length;
  writeLine(
    io.stdout,
    errors === 0 && warnings.length === 0
      ? `The configuration for \`${role}\` is complete${values.offline ? "" : " and every source answered"}.`
      : `${errors} ${errors === 1 ? "error" : "errors"}, ${warnings.length} ${warnings.length === 1 ? "warning" : "warnings"}.`,
  );
  return errors > 0 ? ExitCode.Usage : ExitCode.Ok;
}

/**
 * The autopilot policy's steps against the playbooks bot start loads, with the check bot start
 * refuses with; playbooks that do not load are an error of their own.
 */
async function autopilotStepProblems(inspection: ConfigInspection): Promise<string[]> {
  if (inspection.bot.autopilot.policies.length === 0) return [];
  try {
    const playbooks = await loadPlaybooks();
    return policyStepLines(inspection.bot.autopilot, playbooks.playbooks, inspection.autopilotLines);
  } catch (error) {
    return [`playbooks: ${(error as Error).message}`];
  }
}

/** The probe only needs to see an answer start. */
const PROBE_MAX_BYTES = 1024 * 1024;

/**
 * One GET per source, all at once, each within `timeoutMs`: any HTTP answer (even 401) means the
 * source is there; only no answer is a warning, with the network's reason (never a secret).
 */
async function probeSources(sources: SourceSpecs, timeoutMs: number): Promise<string[]> {
  const { catalogs, flink, connect, prometheus } = sources;
  const all = Object.entries({ catalog: catalogs, flink, connect, prometheus }).flatMap(([kind, list]) =>
    list.map((source) => probe(kind as SourceName, source, timeoutMs)),
  );
  return (await Promise.all(all)).filter((a): a is string => a !== undefined);
}

async function probe(
  kind: SourceName,
  source: Pick<HttpSourceSpec, "name" | "url" | "tls">,
  timeoutMs: number,
): Promise<string | undefined> {
  const dispatcher = tlsAgent(source.tls);
  const where = `${kind} source ${source.name} (${redactUrl(source.url)})`;
  try {
    await sendRaw({ source: kind, dispatcher, timeoutMs, maxBytes: PROBE_MAX_BYTES }, { url: source.url });
    return undefined;
  } catch (error) {
    const coded = asCodedError(error);
    if (coded.code === ErrorCode.SourceTimeout && coded.details?.phase === "headers")
      return `${where}: no answer within ${timeoutMs} ms; the bot would go on without it`;
    if (coded.code === ErrorCode.SourceUnreachable)
      return `${where}: unreachable (${coded.details?.errorCode}); the bot would go on without it`;
    // Anything else came after an answer began (a body too large, slow or cut short): the source is there.
    return undefined;
  } finally {
    await dispatcher?.close().catch(() => {});
  }
}
