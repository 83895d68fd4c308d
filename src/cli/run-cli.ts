// The iceberg-bot command line, callable in-process: runCli(argv, io) returns the exit code and
// never throws. Errors become `error:` + `hint:` lines on stderr, with secrets scrubbed and no
// stack trace. It loads only what the command asks for: `--help` needs no config, schema or client,
// and each command's module is imported when it runs (a cold start is mostly module loading).

import { escapeForTerminal } from "../adapters/render/text-safety.js";
import type { Config, Env } from "../config.js";
import { closestMatch } from "../core/incident/closest-match.js";
import { asCodedError, CodedError, ErrorCode } from "../errors.js";
import { packageVersion } from "../util/package-root.js";
import { credentialSecret, scrubAllForms, urlPassword } from "../util/secret-forms.js";
import { ExitCode, type ExitCodeValue, exitCodeFor } from "./exit-codes.js";
import { type CliIo, type CommandCall, writeLine } from "./io.js";
import { SOURCE_URL_VARIABLES } from "./role-check.js";
import { COMMAND_USAGE, GENERAL_USAGE } from "./usage.js";

type Run = (call: CommandCall) => Promise<ExitCodeValue>;

const botCommand = async (): Promise<Run> => (await import("./commands/bot-command.js")).runBotCommand;
const tableCommand = async (): Promise<Run> => {
  // Its own step, so that the setting precedes every schema even where the build puts the
  // schemas in modules that the command's module would otherwise load first.
  await import("./commands/zod-without-jit.js");
  return (await import("./commands/table-command.js")).runTableCommand;
};
const historyCommand = async (): Promise<Run> =>
  (await import("./commands/history-command.js")).runHistoryCommand;

/** Each command's module, imported only when the command runs. */
const COMMAND_MODULES: Record<string, () => Promise<Run>> = {
  start: botCommand,
  serve: botCommand,
  worker: botCommand,
  diagnose: tableCommand,
  audit: tableCommand,
  sweep: async () => (await import("./commands/sweep-command.js")).runSweepCommand,
  playbooks: async () => (await import("./commands/playbooks-command.js")).runPlaybooksCommand,
  history: historyCommand,
  postmortem: historyCommand,
  demo: async () => (await import("./commands/bot-command.js")).runDemoCommand,
  dev: async () => (await import("./commands/dev-command.js")).runDevCommand,
  sim: async () => (await import("./commands/sim-command.js")).runSimCommand,
  schemas: async () => (await import("./commands/schemas-command.js")).runSchemasCommand,
  discover: async () => (await import("./commands/discover-command.js")).runDiscoverCommand,
  config: async () => (await import("./commands/config-command.js")).runConfigCommand,
};

export const COMMANDS = [...Object.keys(COMMAND_MODULES), "help"];

export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCodeValue> {
  // A loaded config's secrets are listed only when an error is reported: config.js (zod, yaml)
  // is then loaded already, and a command that succeeds never pays for the list.
  const configs: Readonly<Config>[] = [];
  try {
    return await dispatch(argv, io, (config) => {
      configs.push(config);
    });
  } catch (error) {
    const secrets = envSecrets(io.env);
    if (configs.length > 0) {
      const { secretValues } = await import("../config.js");
      for (const config of configs) secrets.push(...secretValues(config));
    }
    return reportError(error, io, secrets);
  }
}

async function dispatch(
  argv: readonly string[],
  io: CliIo,
  onConfig: CommandCall["onConfig"],
): Promise<ExitCodeValue> {
  const [command, ...args] = argv;
  if (command === undefined) {
    io.stderr.write(GENERAL_USAGE);
    return ExitCode.Usage;
  }
  if (command === "--help" || command === "-h") return showHelp([], io);
  if (command === "--version" || command === "-v") {
    writeLine(io.stdout, packageVersion());
    return ExitCode.Ok;
  }
  if (command === "help") return showHelp(args, io);
  const load = Object.hasOwn(COMMAND_MODULES, command) ? COMMAND_MODULES[command] : undefined;
  if (!load) throw unknownCommand(command);
  if (wantsHelp(args)) return showHelp([command], io);
  return (await load())({ command, args, io, onConfig });
}

function showHelp(args: readonly string[], io: CliIo): ExitCodeValue {
  const [topic] = args;
  if (topic === undefined) {
    io.stdout.write(GENERAL_USAGE);
    return ExitCode.Ok;
  }
  const usage = COMMAND_USAGE[topic];
  if (!usage) throw unknownCommand(topic);
  io.stdout.write(usage);
  return ExitCode.Ok;
}

/** `--help` or `-h` before any `--` terminator. */
function wantsHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}

function unknownCommand(command: string): CodedError {
  const guess = closestMatch(command, COMMANDS);
  const shown = JSON.stringify(command.slice(0, 40));
  return new CodedError(ErrorCode.UsageInvalid, `Unknown command ${shown}.`, {
    hint: guess
      ? `Did you mean \`iceberg-bot ${guess}\`? Run \`iceberg-bot --help\` for the commands.`
      : "Run `iceberg-bot --help` for the commands.",
  });
}

function reportError(error: unknown, io: CliIo, secrets: readonly string[]): ExitCodeValue {
  const coded = asCodedError(error);
  // Names in messages come from people and catalogs: a bidi override or an escape shows as such.
  const scrub = (text: string) => escapeForTerminal(scrubAllForms(text, secrets));
  const message = coded.code === ErrorCode.Internal ? `unexpected failure: ${coded.message}` : coded.message;
  writeLine(io.stderr, `error: ${scrub(message)}`);
  const hint =
    coded.hint ??
    (coded.code === ErrorCode.Internal
      ? "This is a bug in iceberg-bot; please report it with the command you ran (leave secrets out)."
      : undefined);
  if (hint) writeLine(io.stderr, `hint: ${scrub(hint)}`);
  return exitCodeFor(coded);
}

const SECRET_VARIABLES = [
  "SLACK_BOT_TOKEN",
  "SLACK_SIGNING_SECRET",
  "SLACK_APP_TOKEN",
  "ICEBERG_CATALOG_TOKEN",
  "ICEBERG_CATALOG_CREDENTIAL",
  "ALERT_WEBHOOK_TOKEN",
];
const URL_VARIABLES = ["REDIS_URL", ...Object.values(SOURCE_URL_VARIABLES)];

/** Secrets known before (or without) a valid config, so even config errors are scrubbed. */
function envSecrets(env: Env): string[] {
  const values = SECRET_VARIABLES.map((name) => env[name]?.trim() ?? "");
  // Two webhook tokens during a rotation: each one alone is a secret too.
  values.push(...(env.ALERT_WEBHOOK_TOKEN?.split(",").map((token) => token.trim()) ?? []));
  values.push(credentialSecret(env.ICEBERG_CATALOG_CREDENTIAL?.trim() ?? ""));
  for (const name of URL_VARIABLES) values.push(urlPassword(env[name]) ?? "");
  return values.filter((value) => value.length >= 4);
}
