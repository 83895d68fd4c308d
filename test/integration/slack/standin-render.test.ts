// The renderers' output goes through the real WebClient into the stand-in, so every block we build
// is checked by the same rules Slack applies; the transcript then shows what people would read.

import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderAppHome } from "../../../src/adapters/slack/render/app-home.js";
import { renderAudit } from "../../../src/adapters/slack/render/audit.js";
import { renderDiagnosis } from "../../../src/adapters/slack/render/diagnosis.js";
import { renderUsageError } from "../../../src/adapters/slack/render/errors.js";
import { renderHelp } from "../../../src/adapters/slack/render/help.js";
import { renderApplyModal, renderProposal } from "../../../src/adapters/slack/render/proposal.js";
import { renderStatusCard } from "../../../src/adapters/slack/render/status-card.js";
import { renderStatusList } from "../../../src/adapters/slack/render/status-list.js";
import { renderVerification } from "../../../src/adapters/slack/render/verification.js";
import type { NextStep, Report } from "../../../src/core/report/schema.js";
import type { IncidentStory, StoryStep } from "../../../src/core/story/model.js";
import type { VerificationView } from "../../../src/services/view-models.js";
import { type SlackStandIn, startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import { messageText, mrkdwnToPlain, transcript } from "../../../src/sim/slack/transcript.js";
import { storySample } from "../../unit/render/samples.js";

const TOKEN = "xoxb-render-test";
const NOW = Date.parse("2026-11-29T10:07:00Z");
const MIN = 60_000;

const step: NextStep = {
  id: "raise-commit-retries",
  playbook: "commit-conflict",
  summary: "Give the committer more attempts while compaction runs",
  change: {
    kind: "table-properties",
    table: "db.events",
    changes: [{ key: "commit.retry.num-retries", current: "4", proposed: "10" }],
  },
  automatic: true,
};

const report: Report = {
  reportVersion: 1,
  table: "db.events",
  generatedAt: "2026-11-29T09:14:00Z",
  verdict: "commit-conflict",
  findings: [
    {
      id: "commit-conflict",
      severity: "critical",
      summary: "CommitFailedException after 4 retries",
      evidence: [
        { source: "flink", detail: "Cannot commit db.events: base metadata location changed", data: {} },
      ],
    },
    {
      id: "rewrite-in-window",
      severity: "warning",
      summary: "compaction replaced files 3 times",
      evidence: Array.from({ length: 40 }, (_, i) => ({
        source: "catalog" as const,
        detail: `snapshot ${7000 + i} replace where day < '2026-11-29'`,
        data: {},
      })),
    },
  ],
  nextStep: step,
  sources: {
    catalog: { status: "ok" },
    flink: { status: "ok" },
    connect: { status: "unavailable", error: "connection refused" },
    prometheus: { status: "not-configured" },
  },
};

const retries: StoryStep = {
  stepId: "raise-commit-retries",
  title: "raise commit retries",
  index: 1,
  state: "awaiting-approval",
  change: step.change,
  proposedAtMs: NOW - 50 * MIN,
  approvedBy: [],
  checks: [],
  decisions: [],
};

const card: IncidentStory = storySample({
  workflow: "awaiting-approval",
  verdict: { id: "commit-conflict", summary: "commit conflict" },
  openedAtMs: NOW - 55 * MIN,
  step: retries,
  steps: [retries],
});

const checking: VerificationView = {
  incidentId: "inc-1",
  proposalId: "prop-1",
  stepId: "raise-commit-retries",
  table: "db.events",
  writer: { kind: "flink-job", id: "4f2a9c0e11223344556677889900aabb" },
  check: { index: 2, total: 6 },
  intervalSeconds: 300,
  latest: { newSnapshotId: null, elapsedSecondsSinceLastSuccessfulCommit: 3420, trend: "rising" },
};

describe("renderers through the stand-in", () => {
  let standIn: SlackStandIn;
  let web: webApi.WebClient;
  let rootTs: string;

  beforeAll(async () => {
    standIn = await startSlackStandIn({ token: TOKEN });
    web = new webApi.WebClient(TOKEN, { slackApiUrl: standIn.apiUrl, retryConfig: { retries: 0 } });
    const root = await web.chat.postMessage({ channel: "C1", ...renderStatusCard(card, NOW) });
    rootTs = root.ts!;
    await web.chat.postMessage({ channel: "C1", thread_ts: rootTs, ...renderDiagnosis(report) });
    await web.chat.postMessage({
      channel: "C1",
      thread_ts: rootTs,
      ...renderProposal({
        incidentId: "inc-1",
        proposalId: "prop-1",
        table: "db.events",
        step,
        why: "appends survive retries",
        risk: { level: "low", detail: "revertable" },
        verification: { checks: 6, intervalSeconds: 300 },
      }),
    });
    const verification = await web.chat.postMessage({
      channel: "C1",
      thread_ts: rootTs,
      ...renderVerification(checking),
    });
    await web.chat.update({
      channel: "C1",
      ts: verification.ts!,
      ...renderVerification({
        ...checking,
        check: { index: 3, total: 6 },
        outcome: { kind: "recovered", snapshotId: "8123", committedAtMs: NOW, recoveredAfterMs: 18 * MIN },
      }),
    });
    await web.chat.postEphemeral({
      channel: "C1",
      user: "U1",
      thread_ts: rootTs,
      ...renderUsageError({ kind: "not-permitted", action: "approve", approvers: ["S0ONCALL"] }),
    });
    await web.chat.update({
      channel: "C1",
      ts: rootTs,
      ...renderStatusCard(
        {
          ...card,
          workflow: "resolved",
          health: "flowing",
          step: { ...retries, state: "done" },
          recovery: {
            atMs: NOW,
            changeAtMs: NOW - 18 * MIN,
            afterChangeMs: 18 * MIN,
            credit: "fixed",
            stepId: retries.stepId,
          },
        },
        NOW,
      ),
    });
  });

  afterAll(async () => {
    await standIn.close();
  });

  it("has every rendered message accepted by the Web API rules", () => {
    expect(standIn.calls.filter((c) => !c.ok)).toEqual([]);
    expect(standIn.thread("C1", rootTs)).toHaveLength(4);
  });

  it("reads as a thread: the card first, replies indented, buttons and code kept", () => {
    const text = transcript(standIn, "C1", rootTs);
    const lines = text.split("\n");
    expect(lines[0]).toBe("🟢 db.events — commits resumed");
    expect(lines).toContain("(edited 1 time)");
    expect(lines).toContain("    🔍 db.events: commit conflict");
    expect(lines).toContain("    [Apply] [Done by hand] [Skip] [Stop]");
    expect(text).toContain("    ```commit.retry.num-retries: 4 → 10```");
    // The diagnosis keeps to three lines in words; the snapshot ids wait behind the modal.
    expect(text).not.toContain("snapshot 7000 replace");
    expect(text.match(/^ {4}• /gm)?.length ?? 0).toBeLessThanOrEqual(3 + 3);
    expect(text).toContain("    Could not read: Kafka Connect REST API: connection refused");
    expect(text).toContain("    ✅ Recovered: commits on `db.events` resumed after raise commit retries");
    // The ephemeral reply is only for U1, so the thread does not show it.
    expect(text).not.toContain("can't approve");
    expect(lines.filter((l) => l !== "" && !l.startsWith("    ")).length).toBeLessThan(6);
  });

  it("can keep emoji shortcodes", () => {
    expect(transcript(standIn, "C1", rootTs, { emoji: "codes" }).split("\n")[0]).toBe(
      ":large_green_circle: db.events — commits resumed",
    );
    expect(transcript(standIn, "C1", "1.000000")).toBe("");
  });

  it("accepts the modal, App Home, audit, status and help renderings", async () => {
    await web.views.open({
      trigger_id: "1.2.3",
      view: renderApplyModal({
        incidentId: "inc-1",
        proposalId: "prop-1",
        stepId: "review-isolation-level",
        table: "db.events",
        title: "review the isolation level",
        change: step.change,
        risky: true,
      }),
    });
    await web.views.publish({
      user_id: "U1",
      view: renderAppHome({
        nowMs: NOW,
        // Each one handled by someone: no card offers "I'm on it".
        open: Array.from({ length: 40 }, (_, i) => ({
          story: {
            ...card,
            incidentId: `i${i}`,
            openedAtMs: NOW - i * MIN,
            owner: { user: "U1", sinceMs: NOW - MIN, how: "claimed" as const },
          },
        })),
        recentTables: [{ table: "db.orders", incidents: 1, lastOpenedAtMs: NOW - MIN }],
      }),
    });
    const audit = renderAudit({
      reportVersion: 1,
      table: "db.events",
      generatedAt: "2026-11-29T10:00:00Z",
      checks: [
        { id: "retry-budget", status: "fail", summary: "default retries", values: {}, fix: "ALTER TABLE x" },
      ],
    });
    await web.chat.postMessage({ channel: "C2", ...audit });
    await web.chat.postMessage({
      channel: "C2",
      ...renderStatusList({
        nowMs: NOW,
        incidents: [{ story: storySample({ incidentId: "i", health: "unknown", openedAtMs: NOW }) }],
      }),
    });
    await web.chat.postMessage({ channel: "C2", ...renderHelp() });
    expect(standIn.calls.filter((c) => !c.ok)).toEqual([]);
    expect(standIn.views.opened).toHaveLength(1);
    expect(messageText(standIn.messages("C2")[0]!)).toContain("❌ `fail` retry-budget: default retries");
  });
});

describe("mrkdwnToPlain", () => {
  it("turns links, mentions and entities into what a reader sees", () => {
    expect(mrkdwnToPlain("<https://x.example/a|thread> <@U1> <!subteam^S1> <!here> &lt;b&gt; &amp;")).toBe(
      "thread (https://x.example/a) @U1 @S1 @here <b> &",
    );
    expect(mrkdwnToPlain("*bold* and _it_ but snake_case_name and `a_b*`")).toBe(
      "bold and it but snake_case_name and `a_b*`",
    );
  });
});
