// The outbox's poster against real Redis and the Slack stand-in: an entry of a kind this release
// does not know is left for a newer poster without holding back other queues or filling the log,
// and a newer version of a posted postmortem edits its canvas in place, the latest version only.

import { afterEach, describe, expect, it } from "vitest";
import { SlackOutbox } from "../../../src/adapters/slack/outbox/outbox.js";
import { OutboxPoster } from "../../../src/adapters/slack/outbox/poster.js";
import { publishPostmortem } from "../../../src/adapters/slack/postmortem-slack.js";
import { SlackViews } from "../../../src/adapters/slack/views.js";
import { createSlackClient } from "../../../src/adapters/slack/web-client.js";
import { IncidentStore } from "../../../src/adapters/store/incident-store.js";
import type { Postmortem } from "../../../src/core/history/postmortem.js";
import { startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import type { SlackStandIn } from "../../../src/sim/slack/types.js";
import { type TestRedisScope, testRedisScope } from "../../support/redis.js";

const CHANNEL = "C0NAMED";
const quiet = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => "error" as never,
  setName() {},
};

let scope: TestRedisScope | undefined;
let standIn: SlackStandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  await scope?.cleanup();
  standIn = undefined;
  scope = undefined;
});

async function world(label: string) {
  scope = testRedisScope(label);
  standIn = await startSlackStandIn({ channels: [CHANNEL] });
  const slack = createSlackClient({
    token: "xoxb-stand-in",
    apiUrl: standIn.apiUrl,
    retries: 0,
    logger: quiet,
  });
  const store = new IncidentStore(scope.redis, { namespace: scope.namespace });
  const outbox = new SlackOutbox(scope.redis, scope.namespace);
  const logged: Array<{ level: "warn" | "error"; msg: string }> = [];
  const dropped: string[] = [];
  let clock = Date.now();
  const poster = new OutboxPoster({
    outbox,
    slack,
    store,
    views: new SlackViews({ client: slack, store, now: () => clock }),
    now: () => clock,
    log: {
      warn: (_: unknown, msg?: string) => logged.push({ level: "warn", msg: String(msg) }),
      error: (_: unknown, msg?: string) => logged.push({ level: "error", msg: String(msg) }),
    },
    onDropped: (reason) => dropped.push(reason),
    backoff: { capMs: 60_000 },
  });
  const advance = (ms: number) => {
    clock += ms;
  };
  return { slack, store, outbox, poster, logged, dropped, advance, now: () => clock, standIn };
}

function postmortem(open: Postmortem["open"]): Postmortem {
  return {
    incidentId: "inc-1",
    table: "db.events",
    state: "resolved",
    openedAtMs: Date.parse("2026-11-12T09:00:00Z"),
    closedAtMs: Date.parse("2026-11-12T09:20:00Z"),
    timeline: [{ kind: "alert-fired", atMs: Date.parse("2026-11-12T09:00:00Z") }],
    impact: { recovered: true },
    durations: {},
    cause: { verdict: "commit-conflict", evidence: [] },
    notHelped: [],
    open,
    pictures: [],
  };
}

describe("entries a newer release wrote", () => {
  it("are left in place for a newer poster and logged once, while other queues go on", async () => {
    const w = await world("outbox-newer-kind");
    const [, queueKey, dueKey] = w.outbox.appendKeys("inc-newer");
    // The current format, but a kind this release does not send: a newer release wrote it.
    const newer = JSON.stringify({
      id: "o-newer",
      format: 2,
      incidentId: "inc-newer",
      channel: CHANNEL,
      createdAtMs: w.now(),
      delivery: { kind: "hologram", name: "x" },
    });
    await scope!.redis.rpush(queueKey, newer);
    await scope!.redis.zadd(dueKey, w.now(), "inc-newer");
    // Another queue's message, queued behind it in time.
    await w.outbox.append("channel-C0NAMED", CHANNEL, w.now(), {
      kind: "channel-post",
      name: "note-1",
      message: { kind: "text", text: "the other queue's message" },
    });

    // Ten passes, each after the newer queue's lease has run out: it is looked at again each time.
    for (let pass = 0; pass < 10; pass++) {
      await w.poster.drain();
      const due = Number(await scope!.redis.zscore(dueKey, "inc-newer"));
      // Put off by the backoff cap, not polled again at the next tick.
      expect(due).toBeGreaterThanOrEqual(w.now() + 60_000);
      w.advance(60_001);
    }

    expect(await scope!.redis.lrange(queueKey, 0, -1)).toEqual([newer]);
    expect(w.logged).toEqual([
      { level: "error", msg: "a Slack message this release cannot send, left for a newer one" },
    ]);
    expect(w.dropped).toEqual([]);
    expect(w.standIn.messages(CHANNEL).map((m) => m.text)).toEqual(["the other queue's message"]);
  });
});

describe("a newer version of a posted postmortem", () => {
  it("edits its canvas in place, once, with the latest version", async () => {
    const w = await world("outbox-canvas-edit");
    const { incident } = await w.store.openOrJoin("db.events", CHANNEL, w.now());
    const rootTs = String((await w.slack.chat.postMessage({ channel: CHANNEL, text: "status card" })).ts);
    await w.store.update(incident.id, { rootTs }, w.now());
    const item = {
      id: "dup-1",
      kind: "todo" as const,
      text: "Remove the duplicate commit",
      statement: "DELETE FROM db.events WHERE 1 = 0",
    };
    // The postmortem as posted at resolution: one item still open.
    const target = { channel: CHANNEL, threadTs: rootTs };
    const place = await publishPostmortem(w.slack, target, postmortem([item]), {});
    expect(place.kind).toBe("canvas");
    await w.outbox.saveTs(incident.id, "postmortem-document", JSON.stringify(place));
    await w.outbox.saveTs(incident.id, "postmortem", "1.000001");
    expect(w.standIn.canvases()[0]?.markdown).toContain("1 item remains open.");

    // Two versions said one after the other: the later one replaces the earlier before it is sent.
    const done = { ...item, doneBy: "U0ALICE", doneAtMs: Date.parse("2026-11-12T10:00:00Z") };
    await w.outbox.append(incident.id, CHANNEL, w.now(), {
      kind: "postmortem-edit",
      name: "postmortem",
      postmortem: { ...postmortem([item]), notHelped: [] },
    });
    await w.outbox.append(incident.id, CHANNEL, w.now(), {
      kind: "postmortem-edit",
      name: "postmortem",
      postmortem: postmortem([done]),
    });
    await w.poster.drain();

    expect(await w.outbox.pending()).toBe(0);
    const edits = w.standIn.calls.filter((c) => c.method === "canvases.edit");
    expect(edits.map((c) => c.ok)).toEqual([true]);
    const canvases = w.standIn.canvases();
    expect(canvases).toHaveLength(1);
    expect(canvases[0]?.markdown).toContain("Nothing remains open.");
    expect(canvases[0]?.markdown).toContain("Done by U0ALICE");
    // Nothing new in the thread: the note said where the document is, and it still is.
    expect(w.standIn.thread(CHANNEL, rootTs).filter((m) => m.ts !== rootTs)).toHaveLength(0);
  });

  it("is passed over when the postmortem went out as a file (no canvas to edit)", async () => {
    const w = await world("outbox-file-edit");
    const { incident } = await w.store.openOrJoin("db.events", CHANNEL, w.now());
    const rootTs = String((await w.slack.chat.postMessage({ channel: CHANNEL, text: "status card" })).ts);
    await w.store.update(incident.id, { rootTs }, w.now());
    const file = { kind: "file", id: "F0FILE", name: "db.events-postmortem-inc-1.md" };
    await w.outbox.saveTs(incident.id, "postmortem-document", JSON.stringify(file));
    await w.outbox.append(incident.id, CHANNEL, w.now(), {
      kind: "postmortem-edit",
      name: "postmortem",
      postmortem: postmortem([]),
    });
    await w.poster.drain();
    expect(await w.outbox.pending()).toBe(0);
    expect(w.standIn.calls.filter((c) => c.method === "canvases.edit")).toHaveLength(0);
    expect(w.logged).toEqual([]);
  });
});
