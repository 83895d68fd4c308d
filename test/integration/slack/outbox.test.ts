// Drills for what remediation owes Slack, on real Redis and the Slack stand-in: every owed
// message exists exactly once in its thread, whatever Slack does to the calls that carry it.

import { afterEach, describe, expect, it } from "vitest";
import { OUTBOX_EVENT_TYPE } from "../../../src/adapters/slack/outbox/poster.js";
import { createSlackClient } from "../../../src/adapters/slack/web-client.js";
import type { StoredMessage } from "../../../src/sim/slack/types.js";
import { pause } from "../../support/poll.js";
import {
  CHANNEL,
  type ServiceHarness,
  type ServiceHarnessOptions,
  startServiceHarness,
  until,
} from "../remediation/harness.js";

let h: ServiceHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const outboxIdOf = (m: StoredMessage) =>
  m.metadata?.event_type === OUTBOX_EVENT_TYPE ? String(m.metadata.event_payload.outbox_id) : undefined;

/** Owed, delivered and duplicated thread messages of the outbox, once nothing is owed any more. */
async function settle(rootTs: string) {
  await until(async () => (await h!.outbox!.pending()) === 0, "the outbox to drain", { intervalMs: 100 });
  const ids = h!.standIn
    .thread(CHANNEL, rootTs)
    .map(outboxIdOf)
    .filter((id): id is string => id !== undefined);
  const delivered = new Set(ids).size;
  return { delivered, duplicated: ids.length - delivered };
}

async function open(label: string, options: ServiceHarnessOptions) {
  h = await startServiceHarness(label, options);
  return h.openIncident();
}

describe("remediation's Slack messages through the outbox", () => {
  it("slow Slack (posted, answered after the client gave up): one proposal, in its thread", async () => {
    h = await startServiceHarness("outbox-slow", {
      outbox: { timeoutMs: 500, backoff: { baseMs: 100, capMs: 500 } },
    });
    h.standIn.inject({
      method: "chat.postMessage",
      kind: "late",
      delayMs: 1500,
      times: 1,
      match: (args) => args.thread_ts !== undefined && String(args.text ?? "").length > 0,
    });
    const { rootTs } = await h.openIncident();
    const { delivered, duplicated } = await settle(rootTs);
    await h.standIn.settled();
    expect(delivered).toBe(1);
    expect(duplicated).toBe(0);
    const roots = h.standIn.messages(CHANNEL).filter((m) => m.thread_ts === undefined && !m.ephemeralUser);
    expect(roots).toHaveLength(1);
    expect(h.standIn.thread(CHANNEL, rootTs).filter((m) => outboxIdOf(m))).toHaveLength(1);
  });

  it("Slack answering 5xx for 75 s: the proposal survives and exists exactly once, delivered at the first attempt after recovery", async () => {
    h = await startServiceHarness("outbox-outage", { outbox: { backoff: { baseMs: 500, capMs: 5_000 } } });
    // Every post of the outbox fails for 75 s (the harness's own root and diagnosis posts go through).
    h.standIn.inject({
      method: "chat.postMessage",
      kind: "status",
      status: 503,
      forMs: 75_000,
      match: (args) => args.metadata !== undefined,
    });
    // Taken after the fault: every call from started + 75 s on is past the outage.
    const started = Date.now();
    const { rootTs } = await h.openIncident();
    expect(await h.outbox!.pending()).toBeGreaterThan(0);
    await pause(started + 75_000 - Date.now());
    const { delivered, duplicated } = await settle(rootTs);
    // Recovered at the first attempt after the outage (backoff capped at 5 s), not a clock's bound.
    const afterOutage = h.standIn.calls.filter(
      (c) => c.method === "chat.postMessage" && c.args.metadata !== undefined && c.atMs >= started + 75_000,
    );
    expect(afterOutage[0]?.ok).toBe(true);
    expect(delivered).toBe(1);
    expect(duplicated).toBe(0);
  });

  it("a poster killed after Slack took the post: the next one finds it by its outbox id, nothing twice", async () => {
    let kills = 0;
    const { rootTs } = await open("outbox-kill", {
      outbox: {
        backoff: { baseMs: 50, capMs: 200 },
        afterSend: async () => {
          if (kills++ === 0) throw new Error("poster died before recording the post");
        },
      },
    });
    const { delivered, duplicated } = await settle(rootTs);
    expect(kills).toBe(1);
    expect(delivered).toBe(1);
    expect(duplicated).toBe(0);
    expect(h!.standIn.calls.some((c) => c.method === "conversations.replies")).toBe(true);
  });

  it("a poster gone between Slack taking the post and recording it: the next one finds it by its mark, nothing twice", async () => {
    // The first poster hangs after Slack's answer, as a process killed there (or a failover that
    // loses what it records next) would leave things: nothing after the send is in Redis.
    let sends = 0;
    let release = () => {};
    const gone = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { rootTs } = await open("outbox-gone", {
      outbox: {
        afterSend: async () => {
          if (sends++ > 0) return;
          await gone;
          throw new Error("this poster's process is gone");
        },
      },
    });
    try {
      await until(() => sends === 1, "the first post to reach Slack", { intervalMs: 20 });
      // Another process, once the first one's lease on the incident ran out (its clock 31 s on).
      await h!.anotherPoster({ wallClock: () => Date.now() + 31_000 });
      const { delivered, duplicated } = await settle(rootTs);
      expect(delivered).toBe(1);
      expect(duplicated).toBe(0);
      expect(h!.standIn.calls.some((c) => c.method === "conversations.replies")).toBe(true);
    } finally {
      release();
    }
  });

  it("an edit Slack refuses for good (its message is gone) does not hold back the thread's next message", async () => {
    const dropped: string[] = [];
    const errors: string[] = [];
    const { incidentId, rootTs } = await open("outbox-refused-edit", {
      outbox: {
        backoff: { baseMs: 200, capMs: 1_000 },
        onDropped: (reason) => dropped.push(reason),
        onSlackError: (method) => errors.push(method),
      },
    });
    await settle(rootTs);
    const slack = createSlackClient({ token: "xoxb-stand-in", apiUrl: h!.standIn.apiUrl, retries: 0 });
    const gone = await slack.chat.postMessage({ channel: CHANNEL, thread_ts: rootTs, text: "soon deleted" });
    await slack.chat.delete({ channel: CHANNEL, ts: String(gone.ts) });
    await h!.outbox!.saveTs(incidentId, "deleted-note", String(gone.ts));
    const at = Date.now();
    await h!.outbox!.append(incidentId, CHANNEL, at, {
      kind: "update",
      name: "deleted-note",
      message: { kind: "text", text: "an edit of a message that is gone" },
    });
    await h!.outbox!.append(incidentId, CHANNEL, at, {
      kind: "post",
      name: "after-the-refusal",
      message: { kind: "text", text: "the next message in the thread" },
    });
    await until(
      () => h!.standIn.thread(CHANNEL, rootTs).some((m) => m.text === "the next message in the thread"),
      "the message after the refused edit",
    );
    // The post is marked done once Slack's answer is back, a moment after it shows in the thread.
    await until(
      async () => (await h!.outbox!.pending()) === 0,
      "nothing left owed, the refused edit included",
    );
    const refused = h!.standIn.calls.filter((c) => c.method === "chat.update" && !c.ok);
    expect(refused).toHaveLength(1);
    // Nothing owed is dropped unseen: counted (iceberg_bot_slack_messages_dropped_total) and
    // counted as a failed Slack call.
    expect(dropped).toEqual(["rejected"]);
    expect(errors).toEqual(["outbox.update"]);
  });

  it("a worker gone between saving the decision and posting: the message still arrives, once", async () => {
    const { rootTs } = await open("outbox-late-poster", { outbox: { start: false } });
    // The proposal, and the card's edit saved with it.
    expect(await h!.outbox!.pending()).toBe(2);
    expect(h!.standIn.thread(CHANNEL, rootTs).filter((m) => outboxIdOf(m))).toHaveLength(0);
    h!.poster!.start();
    const { delivered, duplicated } = await settle(rootTs);
    expect(delivered).toBe(1);
    expect(duplicated).toBe(0);
  });
});
