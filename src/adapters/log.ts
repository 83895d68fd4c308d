// pino with secrets kept out: known secret fields are redacted by path, and any secret value that
// slips into a message or error text is scrubbed before the line is written.

import { type Logger, pino } from "pino";
import { type Config, REDACTED, secretValues } from "../config.js";
import { secretFileValues } from "../util/secret-file.js";
import { scrubAllForms } from "../util/secret-forms.js";

export type { Logger } from "pino";

const REDACT_PATHS = [
  "token",
  "*.token",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "*.headers.authorization",
  "signingSecret",
  "*.signingSecret",
  "botToken",
  "*.botToken",
  "appToken",
  "*.appToken",
  "password",
  "*.password",
];

export interface LoggerOptions {
  level?: string;
  /** Where lines go (default stdout); tests pass a stream to read them back. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(
  config: Pick<Config, "logLevel"> & Partial<Config>,
  options: LoggerOptions = {},
): Logger {
  const secrets = isFullConfig(config) ? secretValues(config) : [];
  // A secret file rotated since start brings a value the config never held: scrubbed as well.
  const scrub = (text: string) => {
    const all = [...secrets, ...secretFileValues()];
    return all.length > 0 ? scrubAllForms(text, all) : text;
  };
  const stream = options.destination ?? process.stdout;
  return pino(
    {
      level: options.level ?? config.logLevel,
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      base: { service: "iceberg-bot" },
    },
    { write: (line: string) => stream.write(scrub(line)) },
  );
}

function isFullConfig(config: Partial<Config>): config is Config {
  return config.slack !== undefined && config.sources !== undefined && typeof config.redisUrl === "string";
}
