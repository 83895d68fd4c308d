// Upgrades: records written in the previous stored format (what 0.1.0 wrote: no `format` field on
// the walk or the incident) are read, validated and migrated, and the incident is walked to the
// end on them: approval, apply, follow-up, resolved. What is written back is the current format.

import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { INCIDENT_FORMAT } from "../../../src/adapters/store/incident-store.js";
import { WALK_FORMAT } from "../../../src/core/playbook/record-format.js";
import { REDIS_URL } from "../../support/redis.js";
import { ALICE, type ServiceHarness, startServiceHarness, until } from "./harness.js";

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
});
