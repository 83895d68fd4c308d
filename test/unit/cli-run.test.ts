import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/run-cli.js";
import { renderSchemaFiles } from "../../src/cli/schemas.js";
import type { Env } from "../../src/config.js";

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(argv: string[], env: Env = {}, extra: Partial<CliIo> = {}): Promise<Ran> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    env,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    now: () => Date.parse("2026-11-29T09:12:00Z"),
    ...extra,
  });
  return { code, stdout, stderr };
}

// Port 9 (discard) on loopback: nothing listens, so a request, if one were made, would be refused.
const NOWHERE = "http://127.0.0.1:9";

describe("runCli: help and usage", () => {
  it("lists every command with --help", async () => {
    const ran = await run(["--help"]);
    expect(ran.code).toBe(0);
    for (const command of [
      "start",
      "serve",
      "worker",
      "diagnose <table>",
      "audit <table>",
      "playbooks lint [dir]",
    ]) {
      expect(ran.stdout).toContain(command);
    }
    expect(ran.stdout).toContain("demo [scenario]");
    expect(ran.stdout).toContain("sim [scenario]");
    expect(ran.stderr).toBe("");
  });

  it("prints usage to stderr and exits 2 without a command", async () => {
    const ran = await run([]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("Usage: iceberg-bot <command>");
  });

  it.each(["diagnose", "audit", "start", "serve", "worker", "playbooks", "demo", "sim", "schemas"])(
    "shows the help of %s with --help, -h and help <command>",
    async (command) => {
      const long = await run([command, "--help"]);
      const short = await run([command, "-h"]);
      const viaHelp = await run(["help", command]);
      expect(long.code).toBe(0);
      expect(long.stdout).toContain(`Usage: iceberg-bot ${command}`);
      expect(short.stdout).toBe(long.stdout);
      expect(viaHelp.stdout).toBe(long.stdout);
    },
  );

  it("documents the diagnose flags and exit codes", async () => {
    const { stdout } = await run(["diagnose", "--help"]);
    for (const flag of [
      "--format text|json|markdown",
      "--catalog-url",
      "--warehouse",
      "--flink-url",
      "--flink-job",
      "--connect-url",
      "--connector",
      "--prometheus-url",
      "--config FILE",
      "--timeout-ms",
    ]) {
      expect(stdout).toContain(flag);
    }
    expect(stdout).toContain("3 no evidence source answered");
  });

  it("prints the package version", async () => {
    const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../package.json"), "utf8")) as {
      version: string;
    };
    const ran = await run(["--version"]);
    expect(ran.stdout.trim()).toBe(pkg.version);
  });

  it("suggests the closest command for a typo", async () => {
    const ran = await run(["diagnos", "db.events"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(
      'error: Unknown command "diagnos".\nhint: Did you mean `iceberg-bot diagnose`? Run `iceberg-bot --help` for the commands.\n',
    );
  });
});

describe("runCli: flag typos", () => {
  it("suggests the nearest flag, like commands get", async () => {
    const ran = await run(["diagnose", "db.events", "--formt", "json"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(
      'error: Unknown option "--formt" for diagnose.\nhint: Did you mean --format? Run `iceberg-bot diagnose --help` for the options.\n',
    );
    const dev = await run(["dev", "--prot", "4000"]);
    expect(dev.stderr).toContain("Did you mean --port?");
  });

  it("says plainly when a flag lacks its value or takes none", async () => {
    expect((await run(["diagnose", "db.events", "--format"])).stderr).toContain(
      "error: --format needs a value (e.g. --format VALUE).",
    );
    expect((await run(["sim", "--list=yes"])).stderr).toContain("error: --list takes no value.");
    const far = await run(["sim", "--zzzzzzzz"]);
    expect(far.stderr).not.toContain("Did you mean");
  });
});

describe("runCli: diagnose and audit argument errors exit 2 before any request", () => {
  const cases: [string, string[], string][] = [
    ["a missing table", ["diagnose"], "Missing <table>."],
    ["two tables", ["audit", "db.a", "db.b"], 'Unexpected argument "db.b".'],
    ["an unknown flag", ["diagnose", "db.events", "--catalog", NOWHERE], 'Unknown option "--catalog"'],
    [
      "an unknown format",
      ["diagnose", "db.events", "--format", "yaml"],
      "--format must be one of text, json, markdown",
    ],
    [
      "a timeout out of range",
      ["diagnose", "db.events", "--timeout-ms", "50"],
      "--timeout-ms must be a whole number",
    ],
    [
      "a non-numeric timeout",
      ["audit", "db.events", "--timeout-ms", "5s"],
      "--timeout-ms must be a whole number",
    ],
    [
      "a non-http catalog URL",
      ["diagnose", "db.events", "--catalog-url", "ftp://x"],
      "--catalog-url must be an http",
    ],
    [
      "a malformed Flink URL",
      ["diagnose", "db.events", "--flink-url", "not a url"],
      "--flink-url must be an http",
    ],
    [
      "a Flink job that is not an id",
      ["diagnose", "db.events", "--flink-job", "../jobs"],
      "--flink-job must be",
    ],
    ["a hostile connector name", ["diagnose", "db.events", "--connector", "a/../b"], "--connector must be"],
    ["a quoted Spark catalog", ["audit", "db.events", "--spark-catalog", "x'y"], "--spark-catalog must be"],
  ];
  it.each(cases)("rejects %s", async (_label, argv, message) => {
    const ran = await run(argv, { ICEBERG_CATALOG_URL: NOWHERE });
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe("");
    expect(ran.stderr).toContain(message);
    expect(ran.stderr).toMatch(/\nhint: /);
    expect(ran.stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    ["../x", "Table name is not valid"],
    ["db.'x", "quote"],
    ["db%2Fx", "percent-encoded"],
    ["x".repeat(10_000), "longer than 255 characters"],
    ["db..x", "empty level"],
    ["db.ev\u001b[2Jents", "control character"],
  ])("rejects the hostile table name %#", async (table, message) => {
    const ran = await run(["diagnose", table, "--catalog-url", NOWHERE]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(message);
    expect(ran.stderr).not.toContain("\u001b");
    expect(ran.stderr.length).toBeLessThan(400);
  });

  it("exits 2 when no evidence source is configured", async () => {
    const ran = await run(["diagnose", "db.events"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("error: No evidence source is configured.");
    expect(ran.stderr).toContain("hint: Pass --catalog-url");
  });

  it("takes a catalog named only in BOT_CONFIG as the audit's catalog", async () => {
    const BOT_CONFIG = `sources:\n  catalogs:\n    - name: lake\n      url: ${NOWHERE}\n`;
    const ran = await run(["audit", "db.events", "--timeout-ms", "1000"], { BOT_CONFIG });
    expect(ran.stderr).not.toContain("not configured");
    // It read the named catalog: unreachable here, which is a source failure, not a usage error.
    expect(ran.stderr).toMatch(/catalog/i);
    expect(ran.code).not.toBe(2);
  });

  it("exits 2 when audit has no catalog to read", async () => {
    const ran = await run(["audit", "db.events", "--flink-url", NOWHERE]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("hint: Pass --catalog-url or set ICEBERG_CATALOG_URL.");
  });

  it("exits 2 with every invalid setting when the environment is wrong", async () => {
    const ran = await run(["audit", "db.events"], { ICEBERG_CATALOG_URL: "nope", PORT: "-1" });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("ICEBERG_CATALOG_URL");
    expect(ran.stderr).toContain("PORT");
  });

  it("exits 2 when the --config file cannot be read", async () => {
    const ran = await run([
      "diagnose",
      "db.events",
      "--catalog-url",
      NOWHERE,
      "--config",
      "/nonexistent/bot.yaml",
    ]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("Cannot read --config file /nonexistent/bot.yaml (ENOENT)");
  });

  it("exits 2 naming the bad field when the --config file is invalid", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "cli-config-"));
    const file = path.join(dir, "bot.conf");
    writeFileSync(file, "tables:\n  db.events:\n    flinkJob: not-a-job-id\n");
    const ran = await run(["diagnose", "db.events", "--catalog-url", NOWHERE, "--config", file]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("BOT_CONFIG: tables.db.events.flinkJob");
  });
});

describe("runCli: errors", () => {
  it("never prints a secret, even one typed where a command goes", async () => {
    const token = "xoxb-1111-2222-secretvalue";
    const ran = await run([token], { SLACK_BOT_TOKEN: token });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("[redacted]");
    expect(ran.stderr).not.toContain(token);
  });

  it("refuses to start the bot with a config file that does not exist", async () => {
    const ran = await run(["start", "--config", "/nonexistent/bot.yaml"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("error: Cannot read --config file");
  });

  it("rejects arguments the bot commands do not take", async () => {
    const ran = await run(["worker", "extra"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('Unexpected argument "extra".');
  });
});

describe("runCli: schemas", () => {
  it("prints both schemas as JSON", async () => {
    const ran = await run(["schemas"]);
    expect(ran.code).toBe(0);
    const parsed = JSON.parse(ran.stdout) as Record<string, { title: string }>;
    expect(Object.keys(parsed).sort()).toEqual(["audit-report.schema.json", "report.schema.json"]);
  });

  it("writes the files, then --check passes until one changes", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "cli-schemas-"));
    expect((await run(["schemas", "--write", dir])).code).toBe(0);
    for (const { file, text } of renderSchemaFiles())
      expect(readFileSync(path.join(dir, file), "utf8")).toBe(text);
    expect((await run(["schemas", "--check", dir])).code).toBe(0);
    writeFileSync(path.join(dir, "report.schema.json"), "{}\n");
    const stale = await run(["schemas", "--check", dir]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(`out of date: ${path.join(dir, "report.schema.json")}`);
    expect(stale.stderr).not.toContain("audit-report.schema.json");
  });

  it("refuses --write and --check together", async () => {
    expect((await run(["schemas", "--write", "a", "--check", "b"])).code).toBe(2);
  });
});

describe("runCli: sim", () => {
  it("lists the built-in scenarios with their whole descriptions", async () => {
    const ran = await run(["sim", "--list"]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^competing-appends\n {2}A Flink job appends/m);
    expect(ran.stdout).toMatch(/^healthy-flink\n {2}\S/m);
    // The last sentence of a long description is there, not cut at the first line.
    const flat = ran.stdout.replace(/\n {2}/g, " ");
    expect(flat).toContain(
      "raising commit.retry.num-retries to 8 or more lets the Flink writer commit again.",
    );
    expect(ran.stdout.split("\n").every((line) => line.length <= 100)).toBe(true);
  });

  it("rejects an unknown scenario with the closest name", async () => {
    const ran = await run(["sim", "competing-append"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('error: Unknown scenario "competing-append".');
    expect(ran.stderr).toContain("hint: Did you mean competing-appends?");
  });

  it("rejects a port base out of range", async () => {
    const ran = await run(["sim", "--port-base", "80"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("--port-base must be a port number");
  });
});

describe("runCli: playbooks lint", () => {
  it("passes the playbooks shipped with the bot", async () => {
    const ran = await run(["playbooks", "lint"]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^Playbooks in .*playbooks are valid\.\n$/);
  });

  it("prints file:line for every problem and exits 1", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "cli-playbooks-"));
    writeFileSync(path.join(dir, "broken.yaml"), "id: broken\nsteps:\n  - id: [unclosed\n    title: x\n");
    const ran = await run(["playbooks", "lint", dir]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/broken\.yaml:\d+: /);
    expect(ran.stderr).toMatch(/^\d+ problems? in 1 file\.\n$/);
  });

  it("exits 2 for a directory that does not exist or an unknown action", async () => {
    const missing = await run(["playbooks", "lint", "/nonexistent/playbooks"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error: Playbook directory /nonexistent/playbooks does not exist.");
    const action = await run(["playbooks", "check"]);
    expect(action.code).toBe(2);
    expect(action.stderr).toContain("the only one is lint");
  });
});
