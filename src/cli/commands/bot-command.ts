// `start`, `serve`, `worker` and `demo` only wire the command line to the bot's entry points. They
// are imported when used, so `--help` stays fast and a build without them fails with a clear error.

import type { BotRole } from "../../bot/options.js";
import { inspectConfig } from "../../config.js";
import { CodedError, ErrorCode } from "../../errors.js";
import { parseCall } from "../args.js";
import { buildEnvOverlay, type ConfigFlags } from "../config-overlay.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { type CliIo, type CommandCall, readFileOf } from "../io.js";
import { botConfigRoleProblems, envRoleProblems } from "../role-check.js";
import { explainStartupError } from "../startup-errors.js";

export const BOT_OPTIONS = { config: { type: "string" } } as const;

export async function runBotCommand(call: CommandCall): Promise<ExitCodeValue> {
  const command = call.command as BotRole;
  const { values } = parseCall(call, BOT_OPTIONS);
  // Every problem at once, the config's own and what the role needs together (exit 2).
  const { config, problems } = inspectRoleConfig(command, call.io, values);
  if (problems.length > 0 || !config)
    throw new CodedError(
      ErrorCode.ConfigInvalid,
      `Cannot start \`${command}\`, the configuration has problems:\n  - ${problems.join("\n  - ")}`,
      {
        hint: "Fix every setting listed above (see README, Configuration) and start again.",
        details: { problems },
      },
    );
  call.onConfig(config);
  const entry = await loadPiece("the Slack bot", () => import("../../main.js"));
  try {
    // 1: the shutdown failed or ran past its deadline.
    return (await entry.runUntilSignal(config, command)) === 0 ? ExitCode.Ok : ExitCode.NeedsAction;
  } catch (error) {
    throw explainStartupError(error, config.port);
  }
}

/** Every problem a role would start with, in one pass: the config's own, then what the role needs. */
export function inspectRoleConfig(command: BotRole, io: CliIo, flags: ConfigFlags) {
  const env = buildEnvOverlay(command, io.env, flags, readFileOf(io));
  const inspection = inspectConfig(env, { readFile: readFileOf(io) });
  const problems = [...inspection.problems];
  const known = new Set(problems.map((p) => p.split(":")[0]));
  const { flink, connect, prometheus, catalogs } = inspection.bot.sources;
  const declared = flink.length + connect.length + prometheus.length + catalogs.length;
  problems.push(...envRoleProblems(command, env, declared).filter((p) => !known.has(p.split(":")[0])));
  // Settings that did parse are checked for the role even when others did not.
  problems.push(...botConfigRoleProblems(command, env, inspection.bot));
  return { ...inspection, problems };
}

/** --autopilot: on | hold | shadow | off-hours | budget-spent (docs/autopilot.md). */
export const DEMO_OPTIONS = { autopilot: { type: "string" } } as const;

export async function runDemoCommand(call: CommandCall): Promise<ExitCodeValue> {
  const { positionals, values } = parseCall(call, DEMO_OPTIONS, ["scenario"], 0);
  const [scenario] = positionals;
  const { runDemo, DEMO_AUTOPILOT } = await loadPiece("the demo", () => import("../demo.js"));
  const autopilot = values.autopilot as string | undefined;
  if (autopilot !== undefined && !(DEMO_AUTOPILOT as readonly string[]).includes(autopilot))
    throw new CodedError(ErrorCode.UsageInvalid, `--autopilot takes ${DEMO_AUTOPILOT.join(", ")}`, {
      hint: "For example: iceberg-bot demo competing-appends --autopilot on",
    });
  return runDemo({
    stdout: call.io.stdout,
    env: call.io.env,
    ...(scenario ? { scenario } : {}),
    ...(autopilot ? { autopilot: autopilot as (typeof DEMO_AUTOPILOT)[number] } : {}),
  });
}

async function loadPiece<T>(what: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") {
      throw new CodedError(ErrorCode.Internal, `This build of iceberg-bot does not include ${what}.`, {
        hint: "Reinstall the package, or run `npm run build` in a checkout.",
        cause: error,
      });
    }
    throw error;
  }
}
