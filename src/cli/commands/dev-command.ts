// `dev`: the simulated lakehouse, the Slack stand-in, the bot and its workers, and the page to
// click through them, until Ctrl-C.

import { within } from "../../adapters/http/metrics/registry.js";
import { parseCall, wholeNumber } from "../args.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { type CommandCall, untilAborted, writeLine } from "../io.js";
import { DEFAULT_SCENARIO, expectScenario } from "./sim-command.js";

export const DEV_OPTIONS = {
  port: { type: "string" },
  host: { type: "string" },
  scenario: { type: "string" },
} as const;

export async function runDevCommand(call: CommandCall): Promise<ExitCodeValue> {
  const { io } = call;
  const { values } = parseCall(call, DEV_OPTIONS);
  const port = wholeNumber("dev", "--port", values.port, { min: 0, max: 65_535 }, "a port number") ?? 3100;
  const scenario = values.scenario ?? DEFAULT_SCENARIO;
  expectScenario(scenario);
  const { startDev } = await import("../dev.js");
  const dev = await startDev({
    env: io.env,
    say: (line) => writeLine(io.stdout, line),
    port,
    scenario,
    ...(values.host ? { host: values.host } : {}),
  });
  try {
    for (const line of [
      `iceberg-bot dev: open ${dev.link}`,
      "",
      "The link carries this session's token: it is the only way in, so keep it to yourself.",
      `The simulated lakehouse plays ${scenario}; the page's menu fires an alert for any scenario.`,
      "Buttons and forms on the page are sent into the bot as signed Slack requests, as the person",
      "picked at the top (two approvers and one person who may not approve).",
      "Press Ctrl-C to stop.",
    ])
      writeLine(io.stdout, line);
    await untilAborted(io);
    writeLine(io.stderr, "Stopping.");
  } catch (error) {
    await dev.close();
    throw error;
  }
  // The bot, its keys and any private redis-server go; a close stuck on Redis ends at the deadline.
  const closed = await within(STOP_DEADLINE_MS, () => dev.close().then(() => true), false);
  if (!closed) {
    writeLine(io.stderr, `Did not stop within ${STOP_DEADLINE_MS / 1000} s; exiting anyway.`);
    return ExitCode.NeedsAction;
  }
  return ExitCode.Ok;
}

/** As `start`'s shutdown deadline (src/main.ts). */
const STOP_DEADLINE_MS = 15_000;
