// Upgrades: records written in the previous stored format (what 0.1.0 wrote: no `format` field on
// the walk, the incident or a Slack outbox entry, a bare report) are read, validated and migrated,
// and the incident is walked to the end on them: approval, apply, follow-up, resolved. What is
// written back is the current format; what no release could read is refused, naming its key.

import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { OUTBOX_FORMAT } from "../../../src/adapters/slack/outbox/outbox.js";
import { INCIDENT_FORMAT } from "../../../src/adapters/store/incident-store.js";
import { REPORT_FORMAT } from "../../../src/adapters/store/report-format.js";
import { WALK_FORMAT } from "../../../src/core/remediation/record-format.js";
import { ReportSchema } from "../../../src/core/report/schema.js";
import { REDIS_URL } from "../../support/redis.js";
import { ALICE, CHANNEL, type ServiceHarness, startServiceHarness, until } from "./harness.js";

let h: ServiceHarness | undefined;
let redis: Redis | undefined;
afterEach(async () => {
  await h?.close();
  redis?.disconnect();
  h = undefined;
});

describe("records in the previous stored format", () => {
  it("are migrated on read and walked to the end", async () => {
    h = await startServiceHarness("prev-format", { checks: 6, intervalMs: 250 });
    redis = new Redis(REDIS_URL);
    const { incidentId, value } = await h.openProposal();
    const walkKey = h.walks.key(incidentId);
    const incidentKey = h.store.keys.incident(incidentId);
    expect(JSON.parse((await redis.hget(walkKey, "data")) as string).format).toBe(WALK_FORMAT);
    expect(Number(await redis.hget(incidentKey, "format"))).toBe(INCIDENT_FORMAT);

    // Rewrite both as the previous release stored them.
    const { format: _format, ...previous } = JSON.parse((await redis.hget(walkKey, "data")) as string);
    await redis.hset(walkKey, "data", JSON.stringify(previous));
    await redis.hdel(incidentKey, "format");
    // The report as 0.1.0 stored it: the bare report, no envelope.
    const reportsKey = h.store.keys.reports(incidentId);
    const envelope = JSON.parse((await redis.hget(reportsKey, "1")) as string);
    expect(envelope.format).toBe(REPORT_FORMAT);
    expect(envelope.report.reportVersion).toBe(1);
    await redis.hset(reportsKey, "1", JSON.stringify(envelope.report));
    expect(ReportSchema.parse(await h.store.getReport(incidentId, 1))).toEqual(envelope.report);
    expect(JSON.parse((await redis.hget(walkKey, "data")) as string).format).toBeUndefined();
    const read = await h.walks.get(incidentId);
    expect(read?.value.format).toBe(WALK_FORMAT);
    expect(read?.value.walk.current?.phase).toBe("proposed");
    expect((await h.store.get(incidentId))?.state).toBe("awaiting-approval");

    await h.remediation.submitApproval(value, ALICE, "default retries", false);
    await until(() => h!.catalogCommits() === 1, "the catalog commit");
    await until(
      async () => (await h!.walks.get(incidentId))?.value.walk.current?.phase === "applied",
      "applied",
    );
    h.lakehouse.advance(6 * 60_000);
    await until(
      async () => (await h!.store.get(incidentId))?.state === "resolved",
      "the incident to resolve",
    );
    const stored = JSON.parse((await redis.hget(walkKey, "data")) as string);
    expect(stored.format).toBe(WALK_FORMAT);
    expect(stored.walk.status).toBe("resolved");
  });

  it("refuse a record that does not validate, naming the incident", async () => {
    h = await startServiceHarness("bad-format", { checks: 3, intervalMs: 250 });
    redis = new Redis(REDIS_URL);
    const { incidentId } = await h.openProposal();
    const walkKey = h.walks.key(incidentId);
    const data = JSON.parse((await redis.hget(walkKey, "data")) as string);
    data.walk.status = "half-done";
    await redis.hset(walkKey, "data", JSON.stringify(data));
    await expect(h.walks.get(incidentId)).rejects.toMatchObject({
      code: "stored_record_invalid",
      message: expect.stringContaining(`walk of ${incidentId}`),
    });
    await redis.hset(walkKey, "data", "{not json");
    await expect(h.walks.get(incidentId)).rejects.toMatchObject({ code: "stored_record_invalid" });
  });

  it("a report of a newer format that does not hold a report is refused, naming the key and what to do", async () => {
    h = await startServiceHarness("report-newer", { checks: 3, intervalMs: 250 });
    redis = new Redis(REDIS_URL);
    const { incidentId } = await h.openIncident();
    const reportsKey = h.store.keys.reports(incidentId);
    await redis.hset(reportsKey, "1", JSON.stringify({ format: REPORT_FORMAT + 1, findings: {} }));
    const refused = h.store.getReport(incidentId, 1);
    await expect(refused).rejects.toMatchObject({
      code: "stored_record_invalid",
      message: expect.stringContaining(`report 1 of ${reportsKey}`),
      hint: expect.stringContaining("upgrade"),
    });
    // A newer envelope that still holds the report reads (fields it added are kept), so a
    // rollback does not lose reports written meanwhile.
    const report = { reportVersion: 1, added: true };
    await redis.hset(reportsKey, "1", JSON.stringify({ format: REPORT_FORMAT + 1, report, more: 1 }));
    expect(await h.store.getReport(incidentId, 1)).toEqual(report);
    await redis.hset(reportsKey, "chart-1", "{not json");
    await expect(h.store.getChart(incidentId, 1)).rejects.toMatchObject({
      code: "stored_record_invalid",
      message: expect.stringContaining(`chart chart-1 of ${reportsKey}`),
    });
  });

  it("Slack outbox entries: the previous format is sent, an unreadable one dropped and counted, a newer one left for a newer poster", async () => {
    const dropped: string[] = [];
    h = await startServiceHarness("outbox-format", {
      checks: 3,
      intervalMs: 250,
      outbox: { start: false, backoff: { capMs: 120_000 }, onDropped: (reason) => dropped.push(reason) },
    });
    redis = new Redis(REDIS_URL);
    const { incidentId, rootTs } = await h.openIncident();
    const [, queueKey, dueKey] = h.outbox.appendKeys(incidentId);
    const owed = await redis.lrange(queueKey, 0, -1);
    expect(owed.length).toBeGreaterThan(0);
    expect(JSON.parse(owed[0]!).format).toBe(OUTBOX_FORMAT);
    // Every entry as 0.1.0 queued it (no format), behind one no release writes.
    await redis.del(queueKey);
    await redis.rpush(
      queueKey,
      "{not json",
      ...owed.map((raw) => JSON.stringify({ ...JSON.parse(raw), format: undefined })),
    );
    const ids = owed.map((raw) => JSON.parse(raw).id as string);
    expect((await h.outbox.entries(incidentId).catch((e: unknown) => e)) as object).toMatchObject({
      code: "stored_record_invalid",
      message: expect.stringContaining(queueKey),
    });
    // A newer release's entry, of a kind this one does not send, in a queue of its own.
    const [, newerKey] = h.outbox.appendKeys("inc-newer");
    await redis.rpush(
      newerKey,
      JSON.stringify({
        id: "o-newer",
        format: OUTBOX_FORMAT + 1,
        incidentId: "inc-newer",
        channel: CHANNEL,
        createdAtMs: Date.now(),
        delivery: { kind: "hologram" },
      }),
    );
    await redis.zadd(dueKey, Date.now(), "inc-newer");
    await expect(h.outbox.head("inc-newer")).rejects.toMatchObject({
      code: "stored_record_invalid",
      hint: expect.stringContaining("upgrade"),
    });

    h.poster.start();
    await until(async () => (await redis!.llen(queueKey)) === 0, "the incident's queue to drain");
    expect(dropped).toEqual(["invalid"]);
    const sent = h.standIn
      .thread(CHANNEL, rootTs)
      .map((m) => m.metadata?.event_payload.outbox_id)
      .filter((id) => id !== undefined);
    // Ephemerals and the card's edit leave no message of their own in the thread.
    const threadIds = ids.filter(
      (_, i) => !owed[i]!.includes('"kind":"ephemeral"') && !owed[i]!.includes('"delivery":{"kind":"card"}'),
    );
    expect(threadIds.length).toBeGreaterThan(0);
    expect(sent).toEqual(expect.arrayContaining(threadIds));
    // The newer entry is kept, its queue due again only after the backoff cap.
    await until(
      async () => Number(await redis!.zscore(dueKey, "inc-newer")) > Date.now() + 60_000,
      "the newer entry to be put off",
    );
    expect(await redis.lrange(newerKey, 0, -1)).toHaveLength(1);
    expect(dropped).toEqual(["invalid"]);
  });
});
