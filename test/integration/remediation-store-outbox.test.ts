// The walk store saves a decision and the messages it owes Slack in one atomic step: both are
// visible or neither is, so no failure between "saved" and "queued for Slack" can lose a message.

import { afterEach, describe, expect, it } from "vitest";
import { SlackOutbox } from "../../src/adapters/slack/outbox/outbox.js";
import { owedWithWalk } from "../../src/adapters/slack/outbox/say.js";
import { RemediationStore } from "../../src/adapters/store/remediation-store.js";
import type { RemediationRecord } from "../../src/core/remediation/record.js";
import { startWalk } from "../../src/core/remediation/walk.js";
import type { RemediationMessage } from "../../src/services/ports.js";
import { type TestRedisScope, testRedisScope } from "../support/redis.js";

const T0 = Date.UTC(2026, 10, 29, 9, 0, 0);
const INCIDENT = "inc-1";

function record(proposals = 0): RemediationRecord {
  return {
    incidentId: INCIDENT,
    table: "db.events",
    channel: "C0INCIDENTS",
    walk: startWalk("db.events", "commit-failures", T0),
    proposals: Array.from({ length: proposals }, (_, i) => ({
      id: `p${i + 1}`,
      stepId: "raise-commit-retries" as const,
      atMs: T0,
    })),
    applySeq: 0,
    revertSeq: 0,
  };
}

const refusal: RemediationMessage = {
  kind: "ephemeral",
  user: "U0MALLORY",
  notice: {
    kind: "not-approver",
    table: "db.events",
    reason: "not-listed",
    approverUserIds: ["U0ALICE"],
    approverGroupIds: [],
  },
};
const stopped: RemediationMessage = {
  kind: "note",
  name: "walk-ended-1",
  note: { kind: "walk-stopped", table: "db.events", by: "U0ALICE" },
};

describe("walk store with an outbox", () => {
  let scope: TestRedisScope | undefined;
  afterEach(async () => {
    await scope?.cleanup();
    scope = undefined;
  });

  function stores() {
    scope = testRedisScope("walk-outbox");
    const outbox = new SlackOutbox(scope.redis, scope.namespace);
    const walks = new RemediationStore(
      scope.redis,
      scope.namespace,
      owedWithWalk(outbox, () => T0),
    );
    return { redis: scope.redis, outbox, walks };
  }

  async function entries(outbox: SlackOutbox): Promise<unknown[]> {
    const [, queue] = outbox.appendKeys(INCIDENT);
    const raw = await (scope as TestRedisScope).redis.lrange(queue, 0, -1);
    return raw.map((r) => JSON.parse(r) as unknown);
  }

  it("saves the record and its messages in the same step, as the notifier would have queued them", async () => {
    const { outbox, walks } = stores();
    const saved = await walks.mutate(INCIDENT, () => ({
      record: record(1),
      result: "ok",
      messages: [refusal, stopped],
    }));
    expect(saved).toMatchObject({ changed: true, messagesRecorded: true });
    expect((await walks.get(INCIDENT))?.version).toBe(1);
    // In order, as the outbox notifier records them; the poster sends them from here.
    const queued = (await entries(outbox)) as { id: string; channel: string; delivery: unknown }[];
    expect(queued.map((e) => e.delivery)).toEqual([
      {
        kind: "ephemeral",
        user: "U0MALLORY",
        notice: refusal.kind === "ephemeral" ? refusal.notice : undefined,
      },
      {
        kind: "post",
        name: "walk-ended-1",
        message: { kind: "note", note: { kind: "walk-stopped", table: "db.events", by: "U0ALICE" } },
      },
    ]);
    expect(queued.map((e) => e.channel)).toEqual(["C0INCIDENTS", "C0INCIDENTS"]);
    expect(new Set(queued.map((e) => e.id)).size).toBe(2);
    expect((await outbox.head(INCIDENT))?.id).toBe(queued[0]?.id);
    expect(await outbox.claimDue(T0, 1000, 10)).toEqual([INCIDENT]);
  });

  it("a failed save queues nothing, and a save that cannot queue its messages is not saved", async () => {
    const { redis, outbox, walks } = stores();
    await walks.mutate(INCIDENT, () => ({ record: record(0), result: "first" }));
    // The outbox queue is unusable: the whole step fails, the record stays at its old version.
    const [, queue] = outbox.appendKeys(INCIDENT);
    await redis.set(queue, "not a list");
    await expect(
      walks.mutate(INCIDENT, () => ({ record: record(1), result: "second", messages: [refusal] })),
    ).rejects.toThrow(/WRONGTYPE/);
    const after = await walks.get(INCIDENT);
    expect(after?.version).toBe(1);
    expect(after?.value.proposals).toEqual([]);
    await redis.del(queue);

    // A concurrent write makes the first compare-and-set lose: its messages are not queued;
    // the retry saves once and queues its messages once.
    let calls = 0;
    const result = await walks.mutate(INCIDENT, (current) => {
      calls += 1;
      if (calls === 1) void redis.hincrby(walks.key(INCIDENT), "version", 1);
      return {
        record: { ...(current as RemediationRecord), proposals: record(1).proposals },
        result: calls,
        messages: [refusal],
      };
    });
    expect(result).toMatchObject({ changed: true, result: 2 });
    expect(await entries(outbox)).toHaveLength(1);
    expect((await walks.get(INCIDENT))?.version).toBe(3);
  });

  it("without an outbox the store leaves the messages to the notifier", async () => {
    scope = testRedisScope("walk-no-outbox");
    const walks = new RemediationStore(scope.redis, scope.namespace);
    const saved = await walks.mutate(INCIDENT, () => ({ record: record(0), result: 1, messages: [refusal] }));
    expect(saved).toMatchObject({ changed: true, messagesRecorded: false });
  });
});
