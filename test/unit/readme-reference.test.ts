// README documents every command, flag and environment variable the code reads, and
// docker-compose.yml passes every variable to the bot: both are checked against the code itself
// (src/config.ts and the commands' option tables), so a new setting cannot go undocumented.

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { BOT_OPTIONS, DEMO_OPTIONS } from "../../src/cli/commands/bot-command.js";
import { OPTIONS as CONFIG_OPTIONS } from "../../src/cli/commands/config-command.js";
import { DEV_OPTIONS } from "../../src/cli/commands/dev-command.js";
import { OPTIONS as DISCOVER_OPTIONS } from "../../src/cli/commands/discover-command.js";
import { OPTIONS as PLAYBOOKS_OPTIONS } from "../../src/cli/commands/playbooks-command.js";
import { OPTIONS as SCHEMAS_OPTIONS } from "../../src/cli/commands/schemas-command.js";
import { OPTIONS as SIM_OPTIONS } from "../../src/cli/commands/sim-command.js";
import { OPTIONS as SWEEP_OPTIONS } from "../../src/cli/commands/sweep-command.js";
import { OPTIONS as TABLE_OPTIONS } from "../../src/cli/commands/table-command.js";
import { COMMANDS } from "../../src/cli/run-cli.js";
import { COMMAND_USAGE } from "../../src/cli/usage.js";
import { ENV_NAMES } from "../../src/config.js";
import { REPO_ROOT } from "../support/openapi.js";

const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
const compose = parse(readFileSync(path.join(REPO_ROOT, "docker-compose.yml"), "utf8")) as {
  services: { bot: { environment: Record<string, string>; volumes?: string[] } };
};

/** Read outside src/config.ts on purpose: terminal colour and finding redis-server. */
const PROCESS_VARIABLES = ["NO_COLOR", "TERM", "PATH"];

function section(title: string): string {
  const start = readme.indexOf(`## ${title}`);
  expect(start, `README has a "${title}" section`).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf("\n## ", start + 3);
  return readme.slice(start, end < 0 ? undefined : end);
}

const OPTIONS_BY_COMMAND: Record<string, Record<string, unknown>> = {
  start: BOT_OPTIONS,
  serve: BOT_OPTIONS,
  worker: BOT_OPTIONS,
  diagnose: TABLE_OPTIONS,
  // audit shares diagnose's parser but refuses --chart.
  audit: Object.fromEntries(Object.entries(TABLE_OPTIONS).filter(([name]) => name !== "chart")),
  sweep: SWEEP_OPTIONS,
  playbooks: PLAYBOOKS_OPTIONS,
  demo: DEMO_OPTIONS,
  dev: DEV_OPTIONS,
  sim: SIM_OPTIONS,
  schemas: SCHEMAS_OPTIONS,
  discover: DISCOVER_OPTIONS,
  config: CONFIG_OPTIONS,
};

describe("README against the code", () => {
  it("documents every environment variable src/config.ts reads, and no stale one", () => {
    const table = section("Configuration");
    const rows = table.split("\n").filter((line) => line.startsWith("| `"));
    const documented = new Set(
      rows.flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])),
    );
    expect(ENV_NAMES.length).toBeGreaterThan(15);
    expect(ENV_NAMES.filter((name) => !documented.has(name))).toEqual([]);
    const known = new Set([...ENV_NAMES, ...PROCESS_VARIABLES]);
    expect([...documented].filter((name) => name && !known.has(name))).toEqual([]);
  });

  it("lists every command in its Commands section", () => {
    const commands = section("Commands");
    expect(COMMANDS.filter((c) => !commands.includes(`iceberg-bot ${c}`))).toEqual([]);
  });

  it.each(Object.entries(OPTIONS_BY_COMMAND))(
    "documents every flag of %s in README and its --help",
    (command, options) => {
      const flags = Object.keys(options)
        .filter((name) => name !== "help")
        .map((name) => `--${name}`);
      const commands = section("Commands");
      expect(flags.filter((flag) => !commands.includes(flag))).toEqual([]);
      expect(flags.filter((flag) => !(COMMAND_USAGE[command] ?? "").includes(flag))).toEqual([]);
    },
  );
});

describe("docker-compose.yml against the code", () => {
  const bot = compose.services.bot;

  it("passes every environment variable the bot reads", () => {
    expect(ENV_NAMES.filter((name) => !(name in bot.environment))).toEqual([]);
  });

  it("mounts a BOT_CONFIG file where BOT_CONFIG points by default", () => {
    const target = /^\$\{BOT_CONFIG:-([^}]+)\}$/.exec(bot.environment.BOT_CONFIG ?? "")?.[1];
    expect(target).toBeDefined();
    const mounted = (bot.volumes ?? []).map((v) => v.split(":").slice(-2, -1)[0] ?? v.split(":")[1]);
    expect(mounted).toContain(target);
    // The default source exists in the repository, so a plain `docker compose up bot` mounts a file.
    const source = /^\$\{BOT_CONFIG_FILE:-([^}]+)\}/.exec(bot.volumes?.[0] ?? "")?.[1] ?? "";
    expect(readFileSync(path.join(REPO_ROOT, source), "utf8")).toContain("approvers");
  });
});
