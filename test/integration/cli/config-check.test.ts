// `iceberg-bot config check`: every problem of a configuration in one pass, without starting the
// bot. A BOT_CONFIG file with a schema error, a secret variable that is not set and a secret file
// that is missing, plus the role's own missing variables, all come out of one run, each config
// problem with its file:line; a source that refuses connections or never answers is a warning,
// found with a short timeout; a clean configuration exits 0.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/run-cli.js";
import { loadConfig } from "../../../src/config.js";
import { freePort } from "../../../src/util/free-port.js";
import { readSmallFile } from "../../../src/util/read-small-file.js";

const dir = mkdtempSync(join(tmpdir(), "config-check-"));
const servers: http.Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  rmSync(dir, { recursive: true, force: true });
});

async function serve(answer: boolean): Promise<string> {
  const server = http.createServer((_req, res) => {
    // A source that never answers holds the request open.
    if (answer) res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function run(argv: string[], env: Record<string, string>) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    env,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
  });
  return { code, stdout, stderr };
}

function file(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

describe("config check", () => {
  it("lists every problem in one pass, with file:line, and unreachable sources as warnings", async () => {
    const live = await serve(true);
    const silent = await serve(false);
    const closed = `http://127.0.0.1:${await freePort()}`;
    const path = file("broken.yaml", [
      "defaults:",
      "  approvers: [U0LEAD]",
      "retention: { resolvedDays: 0 }",
      "sources:",
      "  flink:",
      "    - name: eu",
      `      url: ${live}`,
      "      auth: { type: bearer, tokenEnv: FLINK_EU_TOKEN }",
      "    - name: us",
      `      url: ${silent}`,
      `      auth: { type: bearer, tokenFile: ${join(dir, "no-such-token")} }`,
      "  connect:",
      "    - name: connect-eu",
      `      url: ${closed}`,
    ]);
    const ran = await run(["config", "check", "--probe-timeout-ms", "300"], {
      BOT_CONFIG: path,
      INCIDENT_CHANNEL: "C0INCIDENTS",
    });
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(2);
    const errors = ran.stdout.split("\n").filter((l) => l.startsWith("error: "));
    const warnings = ran.stdout.split("\n").filter((l) => l.startsWith("warning: "));
    // The schema error, and in the same run what the rest of the file names.
    expect(errors.find((l) => l.includes("retention.resolvedDays"))).toContain(`${path}:3`);
    expect(errors.find((l) => l.includes("FLINK_EU_TOKEN"))).toContain(`${path}:8`);
    expect(errors.find((l) => l.includes("no-such-token"))).toContain(`${path}:11`);
    // What the role needs from the environment.
    expect(errors.some((l) => l.includes("SLACK_BOT_TOKEN: required"))).toBe(true);
    expect(errors.some((l) => l.includes("ALERT_WEBHOOK_TOKEN: required"))).toBe(true);
    expect(errors.some((l) => l.includes("SLACK_SIGNING_SECRET or SLACK_APP_TOKEN"))).toBe(true);
    // The Flink sources BOT_CONFIG names are sources: no "set at least one" for them.
    expect(errors.some((l) => l.includes("evidence sources"))).toBe(false);
    expect(errors).toHaveLength(6);
    // Sources: the live one answered; the silent one and the closed port are warnings.
    expect(warnings).toHaveLength(2);
    expect(warnings.find((l) => l.includes("flink source us"))).toContain("no answer within 300 ms");
    expect(warnings.find((l) => l.includes("connect source connect-eu"))).toContain("ECONNREFUSED");
    expect(ran.stdout).toContain("6 errors, 2 warnings.");
  });

  it("checks the autopilot policy's steps against the playbooks as bot start does, with file:line", async () => {
    const path = file("autopilot.yaml", [
      "defaults:",
      "  approvers: [U0LEAD]",
      "  channel: C0INCIDENTS",
      "autopilot:",
      "  mode: on",
      "  policies:",
      "    - name: restarts",
      "      tables: [{ namespace: db }]",
      "      steps: [raise-commit-retries, idempotent-restart]",
    ]);
    const ran = await run(["config", "check", "--offline"], {
      BOT_CONFIG: path,
      SLACK_BOT_TOKEN: "xoxb-config-check",
      SLACK_SIGNING_SECRET: "signing-secret-config-check",
      ALERT_WEBHOOK_TOKEN: "hook-token-config-check",
      FLINK_REST_URL: "http://127.0.0.1:9",
    });
    expect(ran.code).toBe(2);
    const errors = ran.stdout.split("\n").filter((l) => l.startsWith("error: "));
    expect(errors).toEqual([
      `error: BOT_CONFIG: autopilot.policies.0.steps.1: step idempotent-restart is not marked reversible and lowRisk in its playbook; autopilot may not take it (at ${path}:7)`,
    ]);
    expect(ran.stdout).toContain("1 error, 0 warnings.");
  });

  it("loadConfig itself reports the variables and files a broken BOT_CONFIG names, in the same pass", () => {
    const path = file("one-pass.yaml", [
      "notAKey: 1",
      "sources:",
      "  prometheus:",
      "    - name: prom",
      "      url: http://127.0.0.1:9",
      "      auth: { type: basic, username: bot, passwordEnv: PROM_PASSWORD }",
    ]);
    let message = "";
    try {
      loadConfig({ BOT_CONFIG: path }, { readFile: (p) => readSmallFile(p) });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`notAKey: unknown key`);
    expect(message).toContain(`${path}:1`);
    expect(message).toContain("PROM_PASSWORD is not set or empty");
    expect(message).toContain(`${path}:6`);
  });

  it("exits 0 on a complete configuration whose sources answer, and --offline asks none", async () => {
    const live = await serve(true);
    const path = file("good.yaml", ["defaults:", "  approvers: [U0LEAD]", "  channel: C0INCIDENTS"]);
    const env = {
      BOT_CONFIG: path,
      SLACK_BOT_TOKEN: "xoxb-config-check",
      SLACK_SIGNING_SECRET: "signing-secret-config-check",
      ALERT_WEBHOOK_TOKEN: "hook-token-config-check",
      FLINK_REST_URL: live,
    };
    const ran = await run(["config", "check"], env);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("complete and every source answered");
    const offline = await run(["config", "check", "--offline", "--role", "worker"], {
      ...env,
      FLINK_REST_URL: `http://127.0.0.1:${await freePort()}`,
    });
    expect(offline.code).toBe(0);
    expect(offline.stdout).not.toContain("warning:");
    // Secrets never appear in what it prints.
    expect(`${ran.stdout}${offline.stdout}`).not.toMatch(/xoxb-config-check|signing-secret|hook-token/);
  });
});
