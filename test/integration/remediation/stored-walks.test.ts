// Stored walks that fail alone: one a newer release wrote is never acted on nor written back as
// this release's format (it is left as it is, and whoever pressed a button is told to upgrade);
// one that cannot be read is named to the person who pressed, once, and nothing else stops.

import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { WALK_FORMAT } from "../../../src/core/remediation/record-format.js";
import { REDIS_URL } from "../../support/redis.js";
import { ALICE, BOB, CHANNEL, type ServiceHarness, startServiceHarness, until } from "./harness.js";

let h: ServiceHarness | undefined;
let redis: Redis | undefined;
afterEach(async () => {
  await h?.close();
  redis?.disconnect();
  h = undefined;
});

const ephemeralsTo = (user: string) => h!.standIn.messages(CHANNEL).filter((m) => m.ephemeralUser === user);

describe("stored walks a release cannot use", () => {
  it("a walk of a newer format is left untouched, and the person pressing is told to upgrade", async () => {
    h = await startServiceHarness("walk-newer", { checks: 3, intervalMs: 250, worker: false });
    redis = new Redis(REDIS_URL);
    const { incidentId, value } = await h.openProposal();
    const walkKey = h.walks.key(incidentId);
    const stored = JSON.parse((await redis.hget(walkKey, "data")) as string);
    const newer = JSON.stringify({ ...stored, format: 99, addedLater: { kept: true } });
    await redis.hset(walkKey, "data", newer);
    const version = await redis.hget(walkKey, "version");

    await h.remediation.runJob({ kind: "click", button: "skip", ...value, user: ALICE, slackId: "s1" });
    const told = await until(() => ephemeralsTo(ALICE)[0], "the upgrade notice");
    expect(told.text).toMatch(/newer iceberg-bot/);
    expect(told.text).toMatch(/Upgrade this bot/);
    // Not acted on, not written back: the same bytes and version as the newer release left them.
    expect(await redis.hget(walkKey, "data")).toBe(newer);
    expect(await redis.hget(walkKey, "version")).toBe(version);
    expect(JSON.parse(newer).format).not.toBe(WALK_FORMAT);
    expect(h.catalogCommits()).toBe(0);
    const audit = await h.audit.list("db.events");
    expect(audit.some((r) => r.action === "skipped")).toBe(false);
  });

  it("a truncated walk: each person who presses is told once, and the job ends rather than retrying", async () => {
    h = await startServiceHarness("walk-truncated", { checks: 3, intervalMs: 250, worker: false });
    redis = new Redis(REDIS_URL);
    const { incidentId, value } = await h.openProposal();
    const walkKey = h.walks.key(incidentId);
    const full = (await redis.hget(walkKey, "data")) as string;
    await redis.hset(walkKey, "data", full.slice(0, Math.floor(full.length / 2)));

    // The job does not fail (a retry cannot mend the record), so it is not run again and again.
    await expect(
      h.remediation.runJob({ kind: "click", button: "skip", ...value, user: ALICE, slackId: "s1" }),
    ).resolves.toBeUndefined();
    await expect(
      h.remediation.runJob({ kind: "approval", ...value, user: BOB, confirmed: false, slackId: "s2" }),
    ).resolves.toBeUndefined();
    const alice = await until(() => ephemeralsTo(ALICE)[0], "Alice's notice");
    const bob = await until(() => ephemeralsTo(BOB)[0], "Bob's notice");
    for (const m of [alice, bob]) {
      expect(m.text).toContain(`incident ${incidentId} cannot be read`);
      expect(m.text).toMatch(/other incidents are not affected/);
    }
    await h.delivered();
    expect(ephemeralsTo(ALICE)).toHaveLength(1);
    expect(ephemeralsTo(BOB)).toHaveLength(1);
    expect(await redis.hget(walkKey, "data")).toBe(full.slice(0, Math.floor(full.length / 2)));
  });
});
