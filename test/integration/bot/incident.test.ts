import { afterEach, describe, expect, it } from "vitest";
import { postSigned, slashCommandBody } from "../../support/slack-signing.js";
import { alertmanagerBody, CHANNEL, eventually, type Harness, postAlert, startHarness } from "./harness.js";

describe("an alert becomes one incident thread with a diagnosis", () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it("opens a thread whose root is the status card and whose first reply is the diagnosis", async () => {
    harness = await startHarness("incident", { scenario: "competing-appends" });
    const h = harness;
    const response = await postAlert(h, alertmanagerBody([{ table: "iceberg.db.events" }]));
    expect(response.status).toBe(202);
    expect(JSON.parse(response.body)).toMatchObject({ accepted: 1, ignored: 0 });

    const thread = await eventually(() => {
      const root = h.standIn.messages(CHANNEL).find((m) => !m.thread_ts);
      if (!root) return undefined;
      const replies = h.standIn.thread(CHANNEL, root.ts);
      return replies.length >= 2 ? replies : undefined;
    });
    const [root, diagnosis] = thread;
    expect(root?.text).toContain("db.events");
    expect(diagnosis?.thread_ts).toBe(root?.ts);
    expect(JSON.stringify(diagnosis?.blocks)).toContain("db.events");

    // The card is edited in place once the diagnosis is in: still one root message.
    await eventually(() => h.standIn.messages(CHANNEL).find((m) => m.ts === root?.ts && m.edits > 0));
    const incident = await h.bots[0]!.store.openIncidentFor("db.events");
    expect(incident?.rootTs).toBe(root?.ts);
    expect(incident?.verdict).toBeDefined();
    expect(h.standIn.messages(CHANNEL).filter((m) => !m.thread_ts)).toHaveLength(1);

    // While the incident is open, /iceberg audit answers in its thread.
    const ack = await postSigned(
      h.url("/slack/events"),
      h.secret,
      slashCommandBody({ text: "audit db.events" }),
      "application/x-www-form-urlencoded",
    );
    expect(JSON.parse(ack.body)).toMatchObject({ response_type: "ephemeral" });
    const audit = await eventually(() => {
      const replies = h.standIn.thread(CHANNEL, root!.ts);
      return replies.find((m) => JSON.stringify(m.blocks).includes("Audit of"));
    });
    expect(JSON.stringify(audit.blocks)).toMatch(/retry/i);
    expect(h.standIn.messages(CHANNEL).filter((m) => !m.thread_ts)).toHaveLength(1);
  });

  it("answers /iceberg diagnose for an unknown table with the closest match, ephemerally", async () => {
    harness = await startHarness("unknown-table", { scenario: "competing-appends" });
    const h = harness;
    const body = slashCommandBody({ text: "diagnose db.evnts", userId: "U0TYPO" });
    const ack = await postSigned(h.url("/slack/events"), h.secret, body, "application/x-www-form-urlencoded");
    expect(ack.status).toBe(200);
    const reply = await eventually(() =>
      h.standIn.messages(CHANNEL).find((m) => m.ephemeralUser === "U0TYPO"),
    );
    expect(reply.text).toContain("db.events");
    expect(h.standIn.messages(CHANNEL).filter((m) => !m.ephemeralUser)).toHaveLength(0);
  });
});
