// node:util parseArgs with its errors turned into usage errors that point at --help.

import { type ParseArgsConfig, parseArgs } from "node:util";
import { closestMatch } from "../core/incident/closest-match.js";
import { CodedError, ErrorCode } from "../errors.js";
import type { CommandCall } from "./io.js";

type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

/** Every command takes it; runCli answers it before the command runs. */
const HELP = { help: { type: "boolean", short: "h" } } as const;

export function parseCommandArgs<T extends OptionsConfig>(
  command: string,
  args: readonly string[],
  options: T,
) {
  const all = { ...options, ...HELP };
  try {
    return parseArgs({ args: [...args], options: all, allowPositionals: true, strict: true });
  } catch (error) {
    throw flagError(command, all, error as NodeJS.ErrnoException);
  }
}

/** The call's flags, and its positionals by name: `required` of them, the rest optional. */
export function parseCall<T extends OptionsConfig>(
  call: CommandCall,
  options: T,
  names: string[] = [],
  required = names.length,
) {
  const { values, positionals } = parseCommandArgs(call.command, call.args, options);
  return { values, positionals: expectPositionals(call.command, positionals, names, required) };
}

/** A flag that takes one of a few words; the first is the default. */
export function oneOf<const C extends readonly [string, ...string[]]>(
  command: string,
  flag: string,
  value: string | undefined,
  choices: C,
): C[number] {
  if (value === undefined) return choices[0];
  if (choices.includes(value)) return value;
  const words = choices.length === 2 ? choices.join(" or ") : `one of ${choices.join(", ")}`;
  throw usageError(command, `${flag} must be ${words} (got ${JSON.stringify(value.slice(0, 40))}).`);
}

export const MILLISECONDS = "a whole number of milliseconds";

/** A flag that takes a whole number within `range` (`what` names it in the error). */
export function wholeNumber(
  command: string,
  flag: string,
  value: string | undefined,
  range: { min: number; max: number },
  what = "a whole number",
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < range.min || n > range.max)
    throw usageError(command, `${flag} must be ${what} from ${range.min} to ${range.max}.`);
  return n;
}

/** Node's parser messages, said plainly, with the nearest flag for a typo (like commands get). */
function flagError(command: string, options: OptionsConfig, error: NodeJS.ErrnoException): CodedError {
  const quoted = /'(-[^' ]*)/.exec(error.message)?.[1];
  const names = Object.keys(options).map((name) => `--${name}`);
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && quoted) {
    const flag = quoted.split("=")[0] ?? quoted;
    const shown = JSON.stringify(flag.slice(0, 40));
    const guess = flag.startsWith("--") ? closestMatch(flag, names) : undefined;
    return new CodedError(ErrorCode.UsageInvalid, `Unknown option ${shown} for ${command}.`, {
      hint: guess
        ? `Did you mean ${guess}? Run \`iceberg-bot ${command} --help\` for the options.`
        : `Run \`iceberg-bot ${command} --help\` for the options.`,
    });
  }
  if (error.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && quoted) {
    const flag = quoted.split(/[ =]/)[0] ?? quoted;
    const takesValue = options[flag.replace(/^-+/, "")]?.type === "string";
    const message = takesValue ? `${flag} needs a value (e.g. ${flag} VALUE).` : `${flag} takes no value.`;
    return usageError(command, message);
  }
  // Anything else: Node's own message, still pointing at --help.
  return usageError(command, error.message);
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
