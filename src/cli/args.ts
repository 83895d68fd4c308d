// node:util parseArgs with its errors turned into usage errors that point at --help.

import { type ParseArgsConfig, parseArgs } from "node:util";
import { CodedError, ErrorCode } from "../errors.js";

type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

export function parseCommandArgs<T extends OptionsConfig>(
  command: string,
  args: readonly string[],
  options: T,
) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError(command, (error as Error).message);
  }
}

export function usageError(command: string, message: string): CodedError {
  return new CodedError(ErrorCode.UsageInvalid, message, {
    hint: `Run \`iceberg-bot ${command} --help\` for the options.`,
  });
}

/** Exactly `count` positionals (or at most, when optional). */
export function expectPositionals(
  command: string,
  positionals: string[],
  names: string[],
  required: number,
): (string | undefined)[] {
  if (positionals.length < required) {
    throw usageError(
      command,
      `Missing ${names
        .slice(positionals.length, required)
        .map((n) => `<${n}>`)
        .join(" ")}.`,
    );
  }
  if (positionals.length > names.length) {
    const extra = positionals.slice(names.length).map((p) => JSON.stringify(p.slice(0, 40)));
    throw usageError(command, `Unexpected argument ${extra.join(" ")}.`);
  }
  return names.map((_, i) => positionals[i]);
}
