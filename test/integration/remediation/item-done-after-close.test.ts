// An open item marked done after its incident closed: the history record says so, and the
// postmortem canvas already in the channel is edited to say so too (canvases.edit), through the
// outbox like every other message.

import { afterEach, describe, expect, it } from "vitest";
import { publishPostmortem } from "../../../src/adapters/slack/postmortem-slack.js";
import { createSlackClient } from "../../../src/adapters/slack/web-client.js";
import type { Postmortem } from "../../../src/core/history/postmortem.js";
import { ALICE, CHANNEL, type ServiceHarness, startServiceHarness } from "./harness.js";

let h: ServiceHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("an open item marked done after the incident closed", () => {
  it("edits the posted postmortem canvas to show it done", async () => {
    h = await startServiceHarness("item-done-after-close");
    const { incidentId, rootTs, value } = await h.openProposal();
    await h.delivered();
    // The walk resolved with one item left open, the incident closed.
    const item = { id: "dup-1", kind: "todo" as const, text: "Remove the duplicate commit" };
    await h.walks.mutate(incidentId, (current) =>
      current
        ? {
            record: { ...current, walk: { ...current.walk, status: "resolved" }, openItems: [item] },
            result: 0,
          }
        : undefined,
    );
    await h.store.close(await h.store.require(incidentId), "resolved", Date.now());
    // The canvas posted at resolution, still saying the item is open.
    const slack = createSlackClient({ token: "xoxb-stand-in", apiUrl: h.standIn.apiUrl, retries: 0 });
    const posted: Postmortem = {
      incidentId,
      table: h.table,
      state: "resolved",
      openedAtMs: Date.now(),
      closedAtMs: Date.now(),
      timeline: [],
      impact: { recovered: true },
      durations: {},
      cause: { verdict: "commit-conflict", evidence: [] },
      notHelped: [],
      open: [item],
      pictures: [],
    };
    const place = await publishPostmortem(slack, { channel: CHANNEL, threadTs: rootTs }, posted, {});
    await h.outbox.saveTs(incidentId, "postmortem-document", JSON.stringify(place));
    expect(h.standIn.canvases()[0]?.markdown).toContain("1 item remains open.");

    await h.remediation.press("item-done", value, ALICE);
    await h.delivered();

    const edits = h.standIn.calls.filter((c) => c.method === "canvases.edit");
    expect(edits.map((c) => c.ok)).toEqual([true]);
    const canvases = h.standIn.canvases();
    expect(canvases).toHaveLength(1);
    expect(canvases[0]?.markdown).toContain("Nothing remains open.");
    expect(canvases[0]?.markdown).toContain(`Done by ${ALICE}`);
  });
});
