// `iceberg-bot history <table>` with a stored record it cannot read: the others are listed, and
// the one left out is named once on stderr (stdout stays the list, JSON stays parseable).

import { describe, expect, it } from "vitest";
import { HistoryStore } from "../../../src/adapters/store/history-store.js";
import { runCli } from "../../../src/cli/run-cli.js";
import { closedIncident } from "../../support/history-records.js";
import { REDIS_URL, testRedisScope } from "../../support/redis.js";

async function run(argv: string[], env: Record<string, string>, now: number) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    env,
    now: () => now,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
  });
  return { code, stdout, stderr };
}

describe("iceberg-bot history and a record it cannot read", () => {
  it("lists the readable ones and names the one left out once, on stderr", async () => {
    const scope = testRedisScope("cli-history-unreadable");
    try {
      const now = Date.UTC(2026, 10, 20, 9, 0);
      const history = new HistoryStore(scope.redis, {
        namespace: scope.namespace,
        resolvedDays: 30,
        now: () => now,
      });
      await history.save(closedIncident("inc-701", now - 2 * 86_400_000));
      await history.save(closedIncident("inc-702", now - 86_400_000));
      const key = `{${scope.namespace}}:history:db.events`;
      const record = JSON.parse((await scope.redis.hget(key, "inc-702")) as string);
      await scope.redis.hset(key, "inc-702", JSON.stringify({ ...record, steps: [null] }));

      const args = ["history", "db.events", "--redis-namespace", scope.namespace];
      const text = await run(args, { REDIS_URL }, now);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain("inc-701");
      expect(text.stdout).not.toContain("inc-702");
      expect(text.stderr).toBe(
        "warning: 1 record could not be read and is left out of this list: past incident inc-702 of db.events. " +
          "Written by a release this one cannot read, or damaged: the bot's log names the damaged field " +
          "(stored_record_invalid) (docs/operations.md, Upgrading and rolling back).\n",
      );
      const json = await run([...args, "--format", "json"], { REDIS_URL }, now);
      expect((JSON.parse(json.stdout) as { incidentId: string }[]).map((h) => h.incidentId)).toEqual([
        "inc-701",
      ]);
      expect(json.stderr.match(/could not be read/g)).toHaveLength(1);
    } finally {
      await scope.cleanup();
    }
  });
});
