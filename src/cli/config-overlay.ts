// Flags override the environment by building an env overlay that loadConfig() reads, so config.ts
// stays the one place that parses settings. Flags are checked first to name the flag, not the
// variable, in the error.

import { type Config, type ConfigInspection, type Env, inspectConfig, loadConfig } from "../config.js";
import { CodedError, ErrorCode } from "../errors.js";
import { refusalOf } from "../util/read-small-file.js";
import { usageError } from "./args.js";

export interface ConfigFlags {
  catalogUrl?: string;
  warehouse?: string;
  flinkUrl?: string;
  connectUrl?: string;
  prometheusUrl?: string;
  /** Path of a BOT_CONFIG YAML file. */
  configFile?: string;
  timeoutMs?: string;
}

const URL_FLAGS = [
  ["catalogUrl", "--catalog-url", "ICEBERG_CATALOG_URL"],
  ["flinkUrl", "--flink-url", "FLINK_REST_URL"],
  ["connectUrl", "--connect-url", "CONNECT_REST_URL"],
  ["prometheusUrl", "--prometheus-url", "PROMETHEUS_URL"],
] as const;

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

/** The parsed SOURCE_FLAGS as the overlay reads them. */
export function sourceFlagValues(values: { [K in keyof typeof SOURCE_FLAGS]?: string }): ConfigFlags {
  return {
    catalogUrl: values["catalog-url"],
    warehouse: values.warehouse,
    flinkUrl: values["flink-url"],
    connectUrl: values["connect-url"],
    prometheusUrl: values["prometheus-url"],
    configFile: values.config,
    timeoutMs: values["timeout-ms"],
  };
}

const TIMEOUT_RANGE = { min: 100, max: 120_000 } as const;

export function buildEnvOverlay(
  command: string,
  env: Env,
  flags: ConfigFlags,
  readFile: (path: string) => string,
): Env {
  const overlay: Env = { ...env };
  for (const [key, flag, variable] of URL_FLAGS) {
    const value = flags[key];
    if (value === undefined) continue;
    if (!isHttpUrl(value)) throw usageError(command, `${flag} must be an http:// or https:// URL.`);
    overlay[variable] = value;
  }
  if (flags.warehouse !== undefined) overlay.ICEBERG_WAREHOUSE = flags.warehouse;
  if (flags.timeoutMs !== undefined) {
    const ms = Number(flags.timeoutMs);
    if (!Number.isInteger(ms) || ms < TIMEOUT_RANGE.min || ms > TIMEOUT_RANGE.max) {
      throw usageError(
        command,
        `--timeout-ms must be a whole number of milliseconds from ${TIMEOUT_RANGE.min} to ${TIMEOUT_RANGE.max}.`,
      );
    }
    overlay.SOURCE_TIMEOUT_MS = String(ms);
  }
  if (flags.configFile !== undefined) overlay.BOT_CONFIG = readConfigFile(flags.configFile, readFile);
  return overlay;
}

/** loadConfig over the overlay; BOT_CONFIG naming a file is read with the injected reader. */
export function loadCliConfig(
  command: string,
  env: Env,
  flags: ConfigFlags,
  readFile: (path: string) => string,
): Readonly<Config> {
  return loadConfig(buildEnvOverlay(command, env, flags, readFile), { readFile });
}

/** inspectConfig over the overlay: every problem, without throwing (`config check`, the roles). */
export function inspectCliConfig(
  command: string,
  env: Env,
  flags: ConfigFlags,
  readFile: (path: string) => string,
): ConfigInspection {
  return inspectConfig(buildEnvOverlay(command, env, flags, readFile), { readFile });
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
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
