// The real executable, spawned as a user would run it (through tsx, since dist/ is a build output).

import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";

const root = path.resolve(import.meta.dirname, "../../..");
const main = path.join(root, "src/cli/main.ts");

function cli(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", main, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function finish(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

let lake: Lakehouse;
beforeAll(async () => {
  lake = await startLakehouse({ scenario: "competing-appends" });
});
afterAll(async () => {
  await lake?.close();
});

// Spawning tsx compiles the CLI on the fly, which is slow on a busy machine: allow for it.
describe("the iceberg-bot executable", () => {
  it("diagnoses over real processes: JSON on stdout, exit 1, env read from the process", async () => {
    const child = cli(["diagnose", "db.events", "--format", "json"], {
      ICEBERG_CATALOG_URL: lake.urls.catalog,
      FLINK_REST_URL: lake.urls.flink,
    });
    const { code, stdout, stderr } = await finish(child);
    expect(stderr).toBe("");
    expect(code).toBe(1);
    const schema = JSON.parse(readFileSync(path.join(root, "docs/report.schema.json"), "utf8"));
    const validate = new Ajv2020({ strict: true, validateFormats: false }).compile(schema);
    expect(validate(JSON.parse(stdout))).toBe(true);
  });

  it("runs the simulator until Ctrl-C and prints what to export", async () => {
    const child = cli(["sim", "healthy-flink"]);
    const done = finish(child);
    let seen = "";
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes("Press Ctrl-C")) resolve();
      });
      child.on("close", () => reject(new Error(`sim exited early: ${seen}`)));
    });
    const catalogUrl = /^export ICEBERG_CATALOG_URL=(\S+)$/m.exec(seen)?.[1];
    expect(catalogUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const name of ["FLINK_REST_URL", "CONNECT_REST_URL", "PROMETHEUS_URL"]) {
      expect(seen).toMatch(new RegExp(`^export ${name}=http://127\\.0\\.0\\.1:\\d+$`, "m"));
    }
    const config = await fetch(`${catalogUrl}/v1/config`);
    expect(config.status).toBe(200);
    child.kill("SIGINT");
    const { code, stderr } = await done;
    expect(code).toBe(0);
    expect(stderr).toContain("Stopping the simulated lakehouse.");
  });
});
