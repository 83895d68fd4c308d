// Flags override the environment by building an env overlay that loadConfig() reads, so config.ts
// stays the one place that parses settings. Flags are checked first to name the flag, not the
// variable, in the error.

import { type Config, type Env, loadConfig, SOURCE_TIMEOUT_RANGE } from "../config.js";
import { CodedError, ErrorCode } from "../errors.js";
import { refusalOf } from "../util/read-small-file.js";
import { MILLISECONDS, usageError, wholeNumber } from "./args.js";
import { type CommandCall, readFileOf } from "./io.js";
import { SOURCE_URL_VARIABLES } from "./role-check.js";

/** The flags every command that reads evidence takes: sources, BOT_CONFIG file, deadline. */
export const SOURCE_FLAGS = {
  "catalog-url": { type: "string" },
  warehouse: { type: "string" },
  "flink-url": { type: "string" },
  "connect-url": { type: "string" },
  "prometheus-url": { type: "string" },
  config: { type: "string" },
  "timeout-ms": { type: "string" },
  "spark-catalog": { type: "string" },
} as const;

/** The flags as parseArgs hands them over; `config` is the path of a BOT_CONFIG YAML file. */
export type ConfigFlags = { [K in keyof typeof SOURCE_FLAGS]?: string };

export function buildEnvOverlay(
  command: string,
  env: Env,
  flags: ConfigFlags,
  readFile: (path: string) => string,
): Env {
  const overlay: Env = { ...env };
  for (const [kind, variable] of Object.entries(SOURCE_URL_VARIABLES)) {
    const flag = `${kind}-url` as keyof ConfigFlags;
    const value = flags[flag];
    if (value === undefined) continue;
    if (!isHttpUrl(value)) throw usageError(command, `--${flag} must be an http:// or https:// URL.`);
    overlay[variable] = value;
  }
  if (flags.warehouse !== undefined) overlay.ICEBERG_WAREHOUSE = flags.warehouse;
  const ms = wholeNumber(command, "--timeout-ms", flags["timeout-ms"], SOURCE_TIMEOUT_RANGE, MILLISECONDS);
  if (ms !== undefined) overlay.SOURCE_TIMEOUT_MS = String(ms);
  if (flags.config !== undefined) overlay.BOT_CONFIG = readConfigFile(flags.config, readFile);
  return overlay;
}

/** loadConfig over the overlay; BOT_CONFIG naming a file is read with the injected reader. */
export function loadCliConfig(call: CommandCall, flags: ConfigFlags): Readonly<Config> {
  const readFile = readFileOf(call.io);
  const config = loadConfig(buildEnvOverlay(call.command, call.io.env, flags, readFile), { readFile });
  call.onConfig(config);
  return config;
}

/** The Spark catalog name the statements to copy use, when --spark-catalog gives one. */
export function sparkCatalogFlag(command: string, value: string | undefined): string | undefined {
  if (value !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(value))
    throw usageError(command, "--spark-catalog must be a catalog name (letters, digits and _).");
  return value;
}

function readConfigFile(path: string, readFile: (path: string) => string): string {
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    const reason = refusalOf(error) ?? (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new CodedError(ErrorCode.ConfigInvalid, `Cannot read --config file ${path} (${reason}).`, {
      hint: "Pass the path of a BOT_CONFIG YAML file that exists and is readable.",
    });
  }
  // An empty file means "no table settings", not "unset": keep a valid empty document.
  return text.trim() === "" ? "{}" : text;
}

function isHttpUrl(value: string): boolean {
  return URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
}
