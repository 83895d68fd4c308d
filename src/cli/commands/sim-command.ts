// `sim [scenario]`: serve the simulated lakehouse until interrupted, printing what to export so
// another terminal (the bot, `diagnose`, curl) can talk to it.

import { existsSync } from "node:fs";
import { wrapWords } from "../../core/chart/timeline-spec.js";
import { closestMatch } from "../../core/incident/closest-match.js";
import { utcTime } from "../../core/words/clock.js";
import { CodedError, ErrorCode } from "../../errors.js";
import type { Lakehouse } from "../../sim/lakehouse.js";
import type { Scenario } from "../../sim/scenario/schema.js";
import { listScenarios, loadScenario } from "../../sim/scenarios.js";
import { DEFAULT_STAND_IN_TOKEN, startSlackStandIn } from "../../sim/slack/stand-in.js";
import type { SlackStandIn } from "../../sim/slack/types.js";
import { expectPositionals, parseCommandArgs, usageError, wholeNumber } from "../args.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { type CliIo, type CommandCall, untilAborted, writeLine } from "../io.js";

/** The scenario `sim`, `demo` and `dev` play when none is named. */
export const DEFAULT_SCENARIO = "competing-appends";

export const OPTIONS = {
  list: { type: "boolean" },
  host: { type: "string" },
  "port-base": { type: "string" },
  slack: { type: "boolean" },
  "advertise-host": { type: "string" },
} as const;

export async function runSimCommand({ args, io }: CommandCall): Promise<ExitCodeValue> {
  const { values, positionals } = parseCommandArgs("sim", args, OPTIONS);
  if (values.list) {
    expectPositionals("sim", positionals, [], 0);
    printScenarioList(io);
    return ExitCode.Ok;
  }
  const [name = DEFAULT_SCENARIO] = expectPositionals("sim", positionals, ["scenario"], 0);
  const scenario = resolveScenario(name);
  const ports = parsePortBase(values["port-base"]);
  const host = values.host ?? "127.0.0.1";

  const { startLakehouse } = await import("../../sim/lakehouse.js");
  const { createSimClock } = await import("../../sim/clock.js");
  // The world runs on the wall clock, so `diagnose` (which reads the real time) sees the scenario
  // as written however long the simulator has been up.
  const clock = createSimClock(undefined, { running: true });
  const startedAt = utcTime(clock.now());
  const lakehouse = await startLakehouse({ scenario, host, ports, clock });
  // --slack: the Slack Web API stand-in next to the lakehouse (the port after Prometheus), for a
  // bot with no Slack workspace (docker compose's sim profile).
  const standIn = values.slack
    ? await startSlackStandIn({
        host,
        port: ports ? ports.prometheus + 1 : 0,
        advertisedHost: values["advertise-host"],
      })
    : undefined;
  try {
    for (const line of servingLines(scenario, lakehouse, standIn, startedAt)) writeLine(io.stdout, line);
    await untilAborted(io);
    writeLine(io.stderr, "Stopping the simulated lakehouse.");
  } finally {
    await standIn?.close();
    await lakehouse.close();
  }
  return ExitCode.Ok;
}

/** What `sim` prints while it serves: the services, what to export, and what to try next. */
function servingLines(
  scenario: Scenario,
  lakehouse: Lakehouse,
  standIn: SlackStandIn | undefined,
  startedAt: string,
): string[] {
  const { urls, named } = lakehouse;
  const platform = lakehouse.env();
  const namedLines = (
    [
      ["Flink", named.flink],
      ["Kafka Connect", named.connect],
      ["catalog", named.catalogs],
    ] as const
  ).flatMap(([what, servers]) =>
    Object.entries(servers).map(([name, url]) => `  ${`${what} ${name}`.padEnd(22)}${url}`),
  );
  return [
    `Simulated lakehouse: scenario ${scenario.name}`,
    ...wrapWords(scenario.description.trim(), 96).map((line) => `  ${line}`),
    "",
    `Scenario times count from now (${startedAt}); the world then moves on with the wall clock:`,
    "writers that work keep committing, broken ones stay broken until a change fixes them.",
    "",
    `  Iceberg REST catalog  ${urls.catalog}`,
    `  Flink REST            ${urls.flink}`,
    `  Kafka Connect REST    ${urls.connect}`,
    `  Prometheus            ${urls.prometheus}`,
    ...namedLines,
    "",
    "Export these where the bot or the CLI runs:",
    // Named clusters and catalogs are declared in BOT_CONFIG (docs/sources.md).
    ...(platform.BOT_CONFIG
      ? Object.entries(platform).map(([name, value]) =>
          name === "BOT_CONFIG" ? `export BOT_CONFIG='${value}'` : `export ${name}=${value}`,
        )
      : [
          `export ICEBERG_CATALOG_URL=${urls.catalog}`,
          `export ICEBERG_WAREHOUSE=${scenario.catalog.warehouse}`,
          `export FLINK_REST_URL=${urls.flink}`,
          `export CONNECT_REST_URL=${urls.connect}`,
          `export PROMETHEUS_URL=${urls.prometheus}`,
        ]),
    ...(standIn
      ? [
          `export SLACK_API_URL=${standIn.apiUrl}`,
          `export SLACK_BOT_TOKEN=${DEFAULT_STAND_IN_TOKEN}`,
          `Read a channel: curl -H 'Authorization: Bearer ${DEFAULT_STAND_IN_TOKEN}' -d channel=CHANNEL ${standIn.apiUrl}conversations.history`,
        ]
      : []),
    "",
    `Then: iceberg-bot diagnose ${scenario.table}`,
    `Move time forward: curl -X POST ${urls.catalog}/__sim/advance -d '{"ms":300000}'`,
    "Press Ctrl-C to stop.",
  ];
}

/** Every scenario with its whole description, wrapped under its name. */
function printScenarioList(io: CliIo): void {
  const names = listScenarios();
  for (const [i, name] of names.entries()) {
    let description: string;
    try {
      description = loadScenario(name).description.trim();
    } catch (error) {
      description = `(cannot be loaded: ${(error as Error).message.split("\n")[0]})`;
    }
    if (i > 0) writeLine(io.stdout, "");
    writeLine(io.stdout, name);
    for (const line of wrapWords(description, 96)) writeLine(io.stdout, `  ${line}`);
  }
}

function resolveScenario(name: string): Scenario {
  const looksLikePath = /[\\/]/.test(name) || /\.ya?ml$/.test(name);
  if (!looksLikePath) expectScenario(name, "; a path to a .yaml file works too");
  if (looksLikePath && !existsSync(name)) throw usageError("sim", `Scenario file ${name} does not exist.`);
  return loadScenario(name);
}

/** A built-in scenario's name, or a usage error with the nearest one (`otherwise` ends the hint). */
export function expectScenario(name: string, otherwise = ""): void {
  const known = listScenarios();
  if (known.includes(name)) return;
  const guess = closestMatch(name, known);
  throw new CodedError(ErrorCode.UsageInvalid, `Unknown scenario "${name.slice(0, 80)}".`, {
    hint: guess
      ? `Did you mean ${guess}? \`iceberg-bot sim --list\` shows them all.`
      : `\`iceberg-bot sim --list\` shows the built-in scenarios${otherwise}.`,
  });
}

function parsePortBase(
  value: string | undefined,
): { catalog: number; flink: number; connect: number; prometheus: number } | undefined {
  const base = wholeNumber("sim", "--port-base", value, { min: 1024, max: 65_531 }, "a port number");
  if (base === undefined) return undefined;
  return { catalog: base, flink: base + 1, connect: base + 2, prometheus: base + 3 };
}
