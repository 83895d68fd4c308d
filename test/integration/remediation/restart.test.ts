import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { type PrivateRedis, startPrivateRedis } from "../../../src/sim/servers/redis-server.js";
import { freePort } from "../../../src/util/free-port.js";
import { ALICE, CHANNEL, type ServiceHarness, startServiceHarness, until } from "./harness.js";

// A private redis-server with AOF on a temporary dir, shut down and started again on the same dir.
const dir = mkdtempSync(join(tmpdir(), "iceberg-bot-aof-"));
let redis: PrivateRedis | undefined;
let port = 0;

async function startRedis(): Promise<void> {
  redis = await startPrivateRedis({ port, dir, appendOnly: true });
}

async function restartRedis(): Promise<void> {
  const exited = new Promise((resolve) => redis?.child.once("exit", resolve));
  const admin = new Redis({ port, maxRetriesPerRequest: 0 });
  admin.on("error", () => {});
  // SHUTDOWN flushes the append-only file, then the server exits and the reply never comes.
  await admin.call("SHUTDOWN").catch(() => {});
  admin.disconnect();
  await exited;
  await startRedis();
}

let h: ServiceHarness | undefined;
afterAll(async () => {
  await h?.close().catch(() => {});
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("remediation across a Redis restart (AOF)", () => {
  it("keeps the open incident, the pending approval and the scheduled follow-up", async () => {
    port = await freePort();
    await startRedis();
    h = await startServiceHarness("rem-restart", { redisUrl: `redis://127.0.0.1:${port}`, intervalMs: 2500 });
    const { incidentId, value } = await h.openProposal();

    await restartRedis();
    const afterFirst = await until(
      () => h!.walks.get(incidentId).catch(() => undefined),
      "the walk after restart",
    );
    expect(afterFirst.value.walk.current?.phase).toBe("proposed");
    expect((await h.store.openIncidentFor("db.events"))?.id).toBe(incidentId);
    // The proposal is owed through the outbox: whether it went out before the restart or not, it
    // is in the thread once the poster has drained.
    await h.delivered();
    expect(await h.outbox.messageTs(incidentId, `proposal-${value.proposalId}`)).toBeTruthy();

    // The pending approval still works after the restart; its follow-up is a delayed job.
    await h.remediation.submitApproval(value, ALICE, "after the restart", false);
    await until(
      async () => (await h!.walks.get(incidentId))?.value.walk.current?.phase === "applied",
      "applied",
    );
    const delayed = await until(async () => {
      const jobs = await h!.queue.queue.getDelayed();
      return jobs.some((j) => j.data.kind === "check") ? jobs : undefined;
    }, "the follow-up to be scheduled");

    await restartRedis();
    const stillDelayed = await until(
      () => h!.queue.queue.getDelayed().catch(() => undefined),
      "the delayed jobs after restart",
    );
    expect(stillDelayed.map((j) => j.id)).toEqual(delayed.map((j) => j.id));
    // The follow-up fires after the restart and records its check (it may resolve at once: the
    // writer's commit at the change's own moment counts).
    await until(async () => {
      const walk = (await h!.walks.get(incidentId).catch(() => undefined))?.value.walk;
      const runs = [...(walk?.history ?? []), ...(walk?.current ? [walk.current] : [])];
      return runs.some((r) => r.checksDone >= 1);
    }, "the first follow-up check");
    await until(
      () =>
        h!.standIn
          .messages(CHANNEL)
          .some((m) => /check 1 of 3|confirmed at check 1/.test(`${m.text}${JSON.stringify(m.blocks)}`)),
      "the verification message",
    );
  });
});
