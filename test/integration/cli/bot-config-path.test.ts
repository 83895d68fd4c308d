// BOT_CONFIG is read the same way by every command: inline YAML, or the path of a YAML file (as
// the ConfigMap and compose give it). A command that read it differently would refuse the path
// or ignore the file; a mistake in the file is named with the file's own path and line.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../../src/cli/run-cli.js";
import { REDIS_URL, testRedisScope } from "../../support/redis.js";

const dir = mkdtempSync(join(tmpdir(), "bot-config-path-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
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

/** Line 3 holds a key the schema does not know. */
const BROKEN = "retention:\n  resolvedDays: 30\nnotAKey: 1\n";

/** Every command that reads BOT_CONFIG, with the arguments it needs to get that far. */
const COMMANDS: string[][] = [
  ["history", "db.events"],
  ["postmortem", "inc-1"],
  ["diagnose", "db.events"],
  ["audit", "db.events"],
  ["sweep"],
  ["discover"],
  ["start"],
  ["serve"],
  ["worker"],
];

describe("BOT_CONFIG as a path", () => {
  const broken = file("broken.yaml", BROKEN);
  for (const argv of COMMANDS) {
    it(`${argv[0]} reads the file BOT_CONFIG names and points at its line`, async () => {
      const ran = await run(argv, { BOT_CONFIG: broken, REDIS_URL });
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain(`${broken}:3`);
      expect(ran.stderr).not.toContain("no file reader");
    });
  }

  it("history and postmortem answer from Redis when BOT_CONFIG is a path", async () => {
    const scope = testRedisScope("config-path");
    try {
      const good = file("good.yaml", "retention:\n  resolvedDays: 12\n");
      const env = { BOT_CONFIG: good, REDIS_URL };
      const history = await run(["history", "db.events", "--redis-namespace", scope.namespace], env);
      expect(history.stderr).toBe("");
      expect(history.code).toBe(0);
      // The retention in the file, not the default: the file was read.
      expect(history.stdout).toContain("in the last 12 days");
      const postmortem = await run(["postmortem", "inc-1", "--redis-namespace", scope.namespace], env);
      expect(postmortem.stderr).toContain("No closed incident inc-1");
    } finally {
      await scope.cleanup();
    }
  });
});
