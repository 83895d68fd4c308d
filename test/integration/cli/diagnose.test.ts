// runCli in-process against the simulated lakehouse over loopback: the real clients, the real
// rules, the real renderers; only the streams are captured.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../../../src/cli/io.js";
import { runCli } from "../../../src/cli/run-cli.js";
import type { Env } from "../../../src/config.js";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";

const docs = path.resolve(import.meta.dirname, "../../../docs");
const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
const validateReport = ajv.compile(JSON.parse(readFileSync(path.join(docs, "report.schema.json"), "utf8")));
const validateAudit = ajv.compile(
  JSON.parse(readFileSync(path.join(docs, "audit-report.schema.json"), "utf8")),
);

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(argv: string[], env: Env, io: Partial<CliIo> = {}): Promise<Ran> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    env,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    // The simulators' clocks start together and stand still: reports are judged at their time.
    now: () => conflict.clock.now(),
    ...io,
  });
  return { code, stdout, stderr };
}

function sourceFlags(lake: Lakehouse): string[] {
  return [
    "--catalog-url",
    lake.urls.catalog,
    "--flink-url",
    lake.urls.flink,
    "--connect-url",
    lake.urls.connect,
    "--prometheus-url",
    lake.urls.prometheus,
  ];
}

/** A loopback port nobody listens on: bound, read, closed. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

let conflict: Lakehouse;
let healthy: Lakehouse;

beforeAll(async () => {
  [conflict, healthy] = await Promise.all([
    startLakehouse({ scenario: "competing-appends" }),
    startLakehouse({ scenario: "healthy-flink" }),
  ]);
});

afterAll(async () => {
  await Promise.all([conflict?.close(), healthy?.close()]);
});

// The first run loads the clients and rules; a busy machine can make that take several seconds.
describe("iceberg-bot diagnose against the simulated lakehouse", () => {
  it("prints a JSON report that validates against docs/report.schema.json and exits 1", async () => {
    const ran = await run(["diagnose", "db.events", "--format", "json", ...sourceFlags(conflict)], {});
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(1);
    const report = JSON.parse(ran.stdout) as {
      verdict: string;
      table: string;
      nextStep: { id: string } | null;
    };
    expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    expect(report.table).toBe("db.events");
    expect(report.verdict).toBe("commit-conflict");
    expect(report.nextStep?.id).toBe("raise-commit-retries");
  });

  it("prints the verdict first and the exact change in text", async () => {
    const ran = await run(["diagnose", "db.events", ...sourceFlags(conflict)], {});
    expect(ran.code).toBe(1);
    const [first] = ran.stdout.split("\n");
    expect(first).toMatch(/^✖ db\.events: commit conflict/);
    expect(ran.stdout).toMatch(/commit\.retry\.num-retries: (unset \(default 4\)|4) → \d+/);
    expect(ran.stdout).not.toContain("\u001b[");
  });

  it("renders Markdown with --format markdown", async () => {
    const ran = await run(["diagnose", "db.events", "--format", "markdown", ...sourceFlags(conflict)], {});
    expect(ran.code).toBe(1);
    expect(ran.stdout.startsWith("### 🔴 db.events: commit conflict")).toBe(true);
    expect(ran.stdout).toContain("`raise-commit-retries`");
  });

  it("colours a terminal, but not when NO_COLOR is set", async () => {
    const tty = { isTTY: true };
    let out = "";
    const write = (chunk: string) => (out += chunk);
    await runCli(["diagnose", "db.events", ...sourceFlags(conflict)], {
      env: {},
      stdout: { write, ...tty },
      stderr: { write: () => true },
      now: () => conflict.clock.now(),
    });
    expect(out).toContain("\u001b[");
    out = "";
    await runCli(["diagnose", "db.events", ...sourceFlags(conflict)], {
      env: { NO_COLOR: "1" },
      stdout: { write, ...tty },
      stderr: { write: () => true },
      now: () => conflict.clock.now(),
    });
    expect(out).not.toContain("\u001b[");
    expect(out).toMatch(/^✖ db\.events/);
  });

  it("exits 0 for a healthy table", async () => {
    const ran = await run(["diagnose", "db.orders", "--format", "json", ...sourceFlags(healthy)], {});
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
    const report = JSON.parse(ran.stdout) as { verdict: string; nextStep: unknown };
    expect(validateReport(report)).toBe(true);
    expect(report.verdict).toBe("healthy");
    expect(report.nextStep).toBeNull();
  });

  it("exits 2 for an unknown table, naming the catalog and the namespaces searched", async () => {
    const ran = await run(["diagnose", "db.nope", ...sourceFlags(conflict)], {});
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe("");
    expect(ran.stderr).toMatch(/^error: /);
    expect(ran.stderr).toContain(conflict.urls.catalog);
    expect(ran.stderr).toContain("db");
    expect(ran.stderr).toMatch(/\nhint: /);
  });

  it.each([["../x"], ["db.'x"], ["db%2Fx"], ["x".repeat(10_000)], ["db/x"], ["db.x;drop"]])(
    "exits 2 for the hostile name %# without sending a single request",
    async (table) => {
      conflict.requests.length = 0;
      const ran = await run(["diagnose", table, ...sourceFlags(conflict)], {});
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain("error: Table name is not valid");
      expect(conflict.requests).toEqual([]);
    },
  );

  it("exits 3 when no source answers", async () => {
    const [a, b, c] = await Promise.all([closedPortUrl(), closedPortUrl(), closedPortUrl()]);
    const ran = await run(
      [
        "diagnose",
        "db.events",
        "--catalog-url",
        a,
        "--flink-url",
        b,
        "--connect-url",
        c,
        "--timeout-ms",
        "2000",
      ],
      {},
    );
    expect(ran.code).toBe(3);
    expect(ran.stdout).toBe("");
    expect(ran.stderr).toMatch(/^error: /);
    expect(ran.stderr).not.toMatch(/\n\s+at /);
  });

  it("lets flags override the environment", async () => {
    const dead = await closedPortUrl();
    const env = { ICEBERG_CATALOG_URL: dead, FLINK_REST_URL: dead, CONNECT_REST_URL: dead };
    const viaEnvOnly = await run(["diagnose", "db.events", "--timeout-ms", "2000"], env);
    expect(viaEnvOnly.code).toBe(3);
    const withFlags = await run(["diagnose", "db.events", "--format", "json", ...sourceFlags(conflict)], env);
    expect(withFlags.code).toBe(1);
    expect((JSON.parse(withFlags.stdout) as { verdict: string }).verdict).toBe("commit-conflict");
  });

  it("reads the environment when no flag is given", async () => {
    const env = { ICEBERG_CATALOG_URL: healthy.urls.catalog, FLINK_REST_URL: healthy.urls.flink };
    const ran = await run(["diagnose", "db.orders", "--format", "json"], env);
    expect(ran.code).toBe(0);
  });

  it("passes --flink-job, and the writer named in a --config file, to the investigation", async () => {
    const flag = await run(
      ["diagnose", "db.events", "--format", "json", "--flink-job", "0".repeat(32), ...sourceFlags(conflict)],
      {},
    );
    const fromFlag = JSON.parse(flag.stdout) as { sources: { flink: { status: string; error?: string } } };
    expect(fromFlag.sources.flink.status).toBe("unavailable");
    expect(fromFlag.sources.flink.error).toContain("0".repeat(32));

    const dir = mkdtempSync(path.join(tmpdir(), "cli-bot-config-"));
    const file = path.join(dir, "bot.yaml");
    writeFileSync(file, `tables:\n  db.events:\n    flinkJob: "${"1".repeat(32)}"\n`);
    const viaConfig = await run(
      ["diagnose", "db.events", "--format", "json", "--config", file, ...sourceFlags(conflict)],
      {},
    );
    const fromConfig = JSON.parse(viaConfig.stdout) as typeof fromFlag;
    expect(fromConfig.sources.flink.error).toContain("1".repeat(32));
  });

  it("accepts the Flink metric form of the table name", async () => {
    const ran = await run(
      ["diagnose", "iceberg_db_events", "--format", "json", ...sourceFlags(conflict)],
      {},
    );
    expect(ran.code).toBe(1);
    expect((JSON.parse(ran.stdout) as { table: string }).table).toBe("db.events");
  });

  it("reports a source that hangs as unavailable and still diagnoses with the rest", async () => {
    // The deadline is generous so that only the hanging source, never a slow machine, hits it.
    const id = conflict.faults.inject({ service: "prometheus", path: "^/api", kind: "hang" });
    try {
      const ran = await run(["diagnose", "db.events", "--timeout-ms", "3000", ...sourceFlags(conflict)], {});
      expect(ran.code).toBe(1);
      expect(ran.stdout).toContain("Could not read:\n  Prometheus:");
    } finally {
      conflict.faults.clear(id);
    }
  });
});

describe("iceberg-bot diagnose with the catalog down and the Flink writer failing", () => {
  let down: Lakehouse;
  beforeAll(async () => {
    down = await startLakehouse({ scenario: "catalog-down-flink-failing" });
  });
  afterAll(async () => {
    await down?.close();
  });

  it("says first that the catalog is unreachable, then what Flink shows, never healthy, exit 1", async () => {
    const io = { now: () => down.clock.now() };
    const flags = ["--catalog-url", down.urls.catalog, "--flink-url", down.urls.flink];
    const text = await run(["diagnose", "db.events", ...flags], {}, io);
    expect(text.code).toBe(1);
    const lines = text.stdout.split("\n");
    expect(lines[0]).toMatch(/^! The Iceberg REST catalog was unreachable \(.*503/);
    expect(lines[2]).toMatch(/^✖ db\.events: /);
    const flinkLine = lines.findIndex((l) => l.includes("CommitStateUnknownException"));
    const catalogLine = lines.findIndex((l) =>
      l.includes("catalog: The Iceberg REST catalog was unreachable"),
    );
    expect(catalogLine).toBeGreaterThan(0);
    expect(flinkLine).toBeGreaterThan(catalogLine);

    const json = await run(["diagnose", "db.events", "--format", "json", ...flags], {}, io);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as {
      verdict: string;
      sources: { catalog: { status: string } };
      findings: Array<{ id: string; evidence: Array<{ source: string }> }>;
    };
    expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    expect(report.sources.catalog.status).toBe("unavailable");
    expect(report.verdict).toBe("commit-state-unknown");
    const verdict = report.findings.find((f) => f.id === report.verdict)!;
    expect(verdict.evidence.map((e) => e.source).slice(0, 2)).toEqual(["catalog", "flink"]);
  });
});

describe("iceberg-bot diagnose with catalog credentials", () => {
  const token = "catalog-token-5f1e9a";
  let secured: Lakehouse;
  beforeAll(async () => {
    secured = await startLakehouse({ scenario: "competing-appends", catalogAuth: { token } });
  });
  afterAll(async () => {
    await secured?.close();
  });

  it("sends the token from the environment and never prints it", async () => {
    const ran = await run(["diagnose", "db.events", "--format", "json", ...sourceFlags(secured)], {
      ICEBERG_CATALOG_TOKEN: token,
    });
    expect(ran.code).toBe(1);
    expect(
      (JSON.parse(ran.stdout) as { sources: { catalog: { status: string } } }).sources.catalog.status,
    ).toBe("ok");
    expect(
      secured.requests.some((r) => r.service === "catalog" && JSON.stringify(r.headers).includes(token)),
    ).toBe(true);
    expect(ran.stdout + ran.stderr).not.toContain(token);
  });

  it("reports a rejected token without printing it", async () => {
    const wrong = "wrong-token-77c2d0";
    const ran = await run(["diagnose", "db.events", ...sourceFlags(secured)], {
      ICEBERG_CATALOG_TOKEN: wrong,
    });
    expect(ran.stdout).toMatch(/Could not read:\n {2}Iceberg REST catalog: .*401/);
    expect(ran.stdout + ran.stderr).not.toContain(wrong);
  });
});

describe("iceberg-bot audit against the simulated lakehouse", () => {
  it("prints a JSON audit that validates against docs/audit-report.schema.json", async () => {
    const ran = await run(["audit", "db.events", "--format", "json", ...sourceFlags(conflict)], {});
    expect(ran.stderr).toBe("");
    const report = JSON.parse(ran.stdout) as { checks: { id: string; status: string }[] };
    expect(validateAudit(report), JSON.stringify(validateAudit.errors)).toBe(true);
    expect(report.checks.length).toBeGreaterThan(0);
    const failed = report.checks.some((c) => c.status === "fail");
    expect(ran.code).toBe(failed ? 1 : 0);
    expect(report.checks.find((c) => c.id === "retry-budget")?.status).not.toBe("pass");
  });

  it("prints the checklist as a table in text", async () => {
    const ran = await run(["audit", "db.events", ...sourceFlags(conflict)], {});
    expect(ran.stdout.split("\n")[0]).toMatch(/^db\.events audit: \d+ fail, \d+ warn, \d+ pass$/);
    expect(ran.stdout).toMatch(/^ {2}(fail|warn) {2}retry-budget/m);
  });
});
