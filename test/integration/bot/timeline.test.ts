// The picture in the thread: the whole bot posts the commit timeline under the diagnosis through
// Slack's upload flow (answered by the stand-in), and a failing upload never costs the words.

import { afterEach, describe, expect, it } from "vitest";
import { decodePng } from "../../support/png.js";
import { postSigned } from "../../support/slack-signing.js";
import { alertmanagerBody, CHANNEL, eventually, type Harness, postAlert, startHarness } from "./harness.js";

describe("the commit timeline in the incident thread", () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it("shares the picture in the thread right under the diagnosis", async () => {
    harness = await startHarness("timeline", { scenario: "competing-appends" });
    const h = harness;
    expect((await postAlert(h, alertmanagerBody([{ table: "db.events" }]))).status).toBe(202);
    const file = await eventually(() => h.standIn.files().find((f) => f.completed));
    const root = h.standIn.messages(CHANNEL).find((m) => !m.thread_ts)!;
    const thread = h.standIn.thread(CHANNEL, root.ts);
    const diagnosisIndex = thread.findIndex(
      (m, i) => i > 0 && /commit conflict/i.test(JSON.stringify(m.blocks)),
    );
    expect(diagnosisIndex).toBeGreaterThan(0);
    // The next message in the thread is the picture.
    expect(thread[diagnosisIndex + 1]?.files?.[0]).toMatchObject({ id: file.id, mimetype: "image/png" });
    expect(file.shares).toEqual([
      { channel: CHANNEL, ts: thread[diagnosisIndex + 1]!.ts, thread_ts: root.ts },
    ]);
    const complete = h.standIn.calls.find((c) => c.method === "files.completeUploadExternal")!;
    expect(complete.args).toMatchObject({ channel_id: CHANNEL, thread_ts: root.ts });
    expect(decodePng(file.bytes!).width).toBeGreaterThan(800);
    expect(file.altText).toMatch(
      /^Commits to db\.events from \d\d:\d\d to \d\d:\d\d UTC\. The writer, Flink events-ingest, last committed at \d\d:\d\d/,
    );

    // "Show all evidence" (the button under a cut diagnosis, see the renderer's tests) opens every
    // piece of evidence of this diagnosis in a modal.
    const diagnosis = thread[diagnosisIndex]!;
    const incident = (await h.bots[0]!.store.openIncidentFor("db.events"))!;
    const button = { value: `${incident.id}|1` };
    const payload = JSON.stringify({
      type: "block_actions",
      user: { id: "U0ONCALL" },
      team: { id: "T0TEST" },
      api_app_id: "A0TEST",
      token: "legacy-verification-token",
      trigger_id: "12345.98765.abcd",
      actions: [
        {
          action_id: "evidence_show_all",
          block_id: "b",
          type: "button",
          value: button.value,
          action_ts: "1",
        },
      ],
      container: { type: "message", message_ts: diagnosis.ts, channel_id: CHANNEL },
      channel: { id: CHANNEL },
    });
    const response = await postSigned(
      h.url("/slack/events"),
      h.secret,
      new URLSearchParams({ payload }).toString(),
      "application/x-www-form-urlencoded",
    );
    expect(response.status).toBe(200);
    // A placeholder opens at once; the worker fills it with the report.
    const modal = (await eventually(() => {
      const view = h.standIn.views.opened[0] as { blocks?: unknown } | undefined;
      return view && /• /.test(JSON.stringify(view.blocks)) ? view : undefined;
    })) as {
      title: { text: string };
      blocks: unknown[];
    };
    expect(modal.title.text).toBe("All evidence");
    const report = (await h.bots[0]!.store.getReport(
      (await h.bots[0]!.store.openIncidentFor("db.events"))!.id,
      1,
    )) as {
      findings: Array<{ evidence: unknown[] }>;
    };
    const evidenceCount = report.findings.reduce((sum, f) => sum + f.evidence.length, 0);
    const bullets = JSON.stringify(modal.blocks).match(/• /g) ?? [];
    expect(bullets.length).toBe(evidenceCount);
    // Times read as Slack date tokens, never ISO stamps.
    expect(JSON.stringify(modal.blocks)).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
    expect(JSON.stringify(modal.blocks)).toContain("<!date^");
  });

  it("still posts the diagnosis and the proposal when the upload fails", async () => {
    harness = await startHarness("timeline-fail", { scenario: "competing-appends" });
    const h = harness;
    h.standIn.inject({ method: "files.getUploadURLExternal", kind: "status", status: 500, times: 50 });
    expect((await postAlert(h, alertmanagerBody([{ table: "db.events" }]))).status).toBe(202);
    const root = await eventually(() => h.standIn.messages(CHANNEL).find((m) => !m.thread_ts));
    // The proposal follows the diagnosis even though the picture never came.
    const thread = await eventually(() => {
      const replies = h.standIn.thread(CHANNEL, root.ts);
      // The proposal is a reply; the root card carries a copy of its button too.
      const proposed = replies.slice(1).some((m) => JSON.stringify(m.blocks).includes("playbook_apply"));
      return proposed ? replies : undefined;
    });
    const replies = thread.slice(1);
    expect(replies.filter((m) => /commit conflict/i.test(JSON.stringify(m.blocks)))).toHaveLength(1);
    expect(h.standIn.calls.some((c) => c.method === "files.getUploadURLExternal" && !c.ok)).toBe(true);
    expect(h.standIn.files()).toHaveLength(0);
    expect(thread.some((m) => m.files)).toBe(false);
  });
});
