import { describe, expect, it } from "vitest";
import { renderAppHome } from "../../../src/adapters/slack/render/app-home.js";
import { renderAudit } from "../../../src/adapters/slack/render/audit.js";
import type { KnownBlock } from "../../../src/adapters/slack/render/block-kit.js";
import { renderDiagnosingAck, renderUsageError } from "../../../src/adapters/slack/render/errors.js";
import { renderHelp } from "../../../src/adapters/slack/render/help.js";
import { renderHistory } from "../../../src/adapters/slack/render/history.js";
import { HEALTH_EMOJI, renderStatusCard } from "../../../src/adapters/slack/render/status-card.js";
import { renderStatusList } from "../../../src/adapters/slack/render/status-list.js";
import { parseCommandText } from "../../../src/core/incident/command-text.js";
import { INCIDENT_STATES, type Incident } from "../../../src/core/incident/model.js";
import type { Report } from "../../../src/core/report/schema.js";
import type { IncidentStory, StoryStep } from "../../../src/core/story/model.js";
import { storyOf } from "../../../src/core/story/story.js";
import { checkBlocks, checkView } from "../../../src/sim/slack/block-rules.js";
import { healthyReport, storySample } from "./samples.js";

/** The card of an incident from its hash and newest report alone (no walk). */
const cardOf = (incident: Incident, report: Report | undefined, now: number) =>
  renderStatusCard(storyOf({ incident, report }), now);

const NOW = Date.parse("2026-11-29T10:07:00Z");
const MIN = 60_000;

function allText(blocks: KnownBlock[]): string {
  return blocks
    .map((b) => {
      if (b.type === "section" || b.type === "header") return b.text?.text ?? "";
      if (b.type === "context") return b.elements.map((e) => ("text" in e ? e.text : "")).join(" ");
      return "";
    })
    .join("\n");
}

/** A step of the story, as a proposal waiting for approval left it. */
function step(stepId: StoryStep["stepId"], title: string, over: Partial<StoryStep> = {}): StoryStep {
  return {
    stepId,
    title,
    index: 1,
    state: "awaiting-approval",
    change: { kind: "manual", checklist: [] },
    proposedAtMs: 0,
    approvedBy: [],
    checks: [],
    decisions: [],
    ...over,
  };
}

const waiting = step("move-compaction-off-hot-partitions", "move compaction off hot partitions");

const card: IncidentStory = storySample({
  workflow: "awaiting-approval",
  verdict: { id: "commit-conflict", summary: "commit conflict (CommitFailedException, retries exhausted)" },
  cause: {
    id: "rewrite-in-window",
    summary: "compaction (Spark app …0412) replaced files 3 times since the last good commit",
  },
  openedAtMs: NOW - 55 * MIN,
  lastGoodCommitMs: NOW - 55 * MIN,
  step: waiting,
  steps: [waiting],
});

/** A resolved story: `fixed` made the writer commit again `afterMs` after its change. */
function resolvedBy(fixed: StoryStep, afterMs: number): IncidentStory {
  const recovery = {
    atMs: NOW,
    changeAtMs: NOW - afterMs,
    afterChangeMs: afterMs,
    credit: "fixed" as const,
    stepId: fixed.stepId,
  };
  return { ...card, workflow: "resolved", health: "flowing", step: fixed, steps: [fixed], recovery };
}

describe("renderStatusCard", () => {
  it("shows table, age, verdict, cause, what happens now and the state line", () => {
    const { text, blocks } = renderStatusCard(card, NOW);
    expect(blocks[0]).toEqual({
      type: "header",
      text: {
        type: "plain_text",
        text: ":red_circle: db.events — commits failing for 55 min",
        emoji: true,
      },
    });
    const all = allText(blocks);
    expect(all).toContain("*Verdict:* commit conflict (CommitFailedException, retries exhausted)");
    expect(all).toContain("*Cause:* compaction (Spark app …0412) replaced files 3 times");
    expect(all).toContain('*Now:* waiting for approval of "move compaction off hot partitions"');
    // Date tokens: each reader sees their own time zone; the fallback is UTC.
    expect(all).toContain(
      "waiting for approval · step 1 · opened <!date^1795943520^{time}|09:12 UTC> · updated <!date^1795946820^{time}|10:07 UTC>",
    );
    expect(text).toBe(":red_circle: db.events — commits failing for 55 min (waiting for approval)");
    expect(checkBlocks(blocks, "message")).toEqual([]);
  });

  it("a resolved incident with an open item says so and offers Mark done until someone does", () => {
    const restart = step("idempotent-restart", "Restart the writer without duplicating data", {
      proposalId: "p2",
      state: "done",
    });
    const resolved: IncidentStory = {
      ...resolvedBy(restart, 4 * MIN),
      openItems: [
        {
          id: "o1",
          kind: "todo",
          text: "Remove the duplicate commit: snapshot 22 holds the same data as snapshot 11",
          statement: "SELECT 1;",
        },
      ],
    };
    const open = renderStatusCard(resolved, NOW);
    expect(open.text).toBe(
      ":large_green_circle: db.events — commits resumed, 1 item open (resolved with 1 open item)",
    );
    expect(allText(open.blocks)).toContain(
      "*Still open:* Remove the duplicate commit: snapshot 22 holds the same data as snapshot 11",
    );
    const actions = open.blocks.find((b) => b.type === "actions");
    expect(JSON.stringify(actions)).toContain('"action_id":"incident_item_done"');
    expect(checkBlocks(open.blocks, "message")).toEqual([]);

    const done = renderStatusCard(
      { ...resolved, openItems: [{ ...resolved.openItems[0]!, doneBy: "U1", doneAtMs: NOW - MIN }] },
      NOW,
    );
    expect(done.text).toBe(":large_green_circle: db.events — commits resumed (resolved)");
    expect(allText(done.blocks)).toContain("*Done:* Remove the duplicate commit");
    expect(allText(done.blocks)).toContain("(<@U1> <!date^");
    expect(done.blocks.some((b) => b.type === "actions")).toBe(false);
  });

  it("counts the failing time from the writer's last commit when the diagnosis knows it", () => {
    const { blocks } = renderStatusCard(
      { ...card, openedAtMs: NOW - 2 * MIN, lastGoodCommitMs: NOW - 55 * MIN },
      NOW,
    );
    expect(allText(blocks)).toContain("commits failing for 55 min");
  });

  it("does not count a failure from the alert when nobody knows the last good commit", () => {
    // No diagnosis yet, or the catalog did not answer: the incident's age is all that is known.
    const { lastGoodCommitMs: _known, ...unknown } = card;
    const { text, blocks } = renderStatusCard({ ...unknown, openedAtMs: NOW - 12 * MIN }, NOW);
    expect(text).toBe(
      ":red_circle: db.events — open for 12 min, last good commit not known (waiting for approval)",
    );
    expect(allText(blocks)).not.toContain("commits failing for");
  });

  it("does not call a healthy table failing: the alert fired, but the writer commits", () => {
    // What the diagnosis stores: the healthy finding marks the writer's newest commit.
    const report = {
      ...healthyReport,
      findings: healthyReport.findings.map((f) => ({
        ...f,
        evidence: f.evidence.map((e) => ({
          ...e,
          data: { snapshotId: 42, writerLastCommitAt: new Date(NOW - 3 * MIN).toISOString() },
        })),
      })),
    };
    const incident = {
      id: "i1",
      table: "db.events",
      state: "open" as const,
      channel: "C1",
      openedAt: NOW - 5 * MIN,
      updatedAt: NOW,
      alertCount: 1,
      diagnoses: 1,
      cardVersion: 1,
      firingAlerts: 1,
    };
    const { text, blocks } = cardOf(incident, report, NOW);
    const all = allText(blocks);
    expect(all).not.toMatch(/failing/);
    expect(text).not.toMatch(/failing/);
    expect(blocks[0]).toMatchObject({
      text: {
        // Green, not red: the alert fired but commits flow.
        text: ":large_green_circle: db.events — alert fired, but commits are flowing (last commit 3 min ago)",
      },
    });
    expect(all).toContain("*Verdict:* the writer committed 3 minutes ago");
    // Without a known last commit it still says commits flow, and a failing verdict still counts the stall.
    const unknown = cardOf(incident, healthyReport, NOW);
    expect(allText(unknown.blocks)).toContain("db.events — alert fired, but commits are flowing\n");
    // A writer idle as its history expects is quiet, not committing: the headline says so.
    const idle = {
      ...report,
      findings: [
        ...report.findings,
        { id: "writer-idle" as const, severity: "info" as const, summary: "quiet hours", evidence: [] },
      ],
    };
    const idleCard = cardOf(incident, idle, NOW);
    expect(allText(idleCard.blocks)).toContain(
      "db.events — alert fired, writer quiet by design (last commit 3 min ago)",
    );
    expect(allText(idleCard.blocks)).not.toContain("commits are flowing");
    const failing = { ...report, verdict: "commit-conflict" as const };
    expect(allText(cardOf(incident, failing, NOW).blocks)).toContain("db.events — commits failing for 3 min");
  });

  it("colours by commit health alone and says the workflow in words", () => {
    const emoji = new Set(Object.values(HEALTH_EMOJI));
    expect(emoji.size).toBe(4);
    // Whatever the workflow, failing commits are red: never yellow while a proposal waits, never ⏳.
    for (const state of INCIDENT_STATES)
      expect(renderStatusCard({ ...card, workflow: state }, NOW).text.startsWith(":red_circle:")).toBe(true);
    const checking = { ...waiting, check: { index: 2, total: 6 } };
    const verifying = allText(
      renderStatusCard({ ...card, workflow: "verifying", step: checking }, NOW).blocks,
    );
    expect(verifying).toContain(":red_circle: db.events");
    expect(verifying).toContain("verifying · step 1 · check 2 of 6");
    const retries = step("raise-commit-retries", "raise commit retries", { state: "done" });
    const resolved = allText(renderStatusCard(resolvedBy(retries, 18 * MIN), NOW).blocks);
    expect(resolved).toContain(":large_green_circle: db.events — commits resumed");
    expect(resolved).toContain("*Fixed by:* raise commit retries; commits resumed 18 min after the change");
    expect(resolved).not.toContain("*Now:*");
  });

  it("escapes outside text in mrkdwn lines", () => {
    const cause = { id: "rewrite-in-window" as const, summary: "writer <!channel> & <@U1>" };
    const all = allText(renderStatusCard({ ...card, cause }, NOW).blocks);
    expect(all).toContain("*Cause:* writer &lt;!channel&gt; &amp; &lt;@U1&gt;");
  });
});

describe("every surface agrees", () => {
  it("the card, /iceberg status and App Home say the same age, colour and state for an incident", () => {
    const lastGood = NOW - 42 * MIN;
    const failing = {
      ...healthyReport,
      verdict: "commit-conflict" as const,
      findings: healthyReport.findings.map((f) => ({
        ...f,
        evidence: f.evidence.map((e) => ({
          ...e,
          data: { writerLastCommitAt: new Date(lastGood).toISOString() },
        })),
      })),
    };
    const incident = {
      id: "i1",
      table: "db.events",
      state: "open" as const,
      channel: "C1",
      // Opened well after the writer's last good commit: every surface counts from the commit.
      openedAt: NOW - 5 * MIN,
      updatedAt: NOW,
      alertCount: 1,
      diagnoses: 1,
      cardVersion: 1,
    };
    const flowing = {
      ...failing,
      verdict: "healthy" as const,
    };
    for (const [report, age, emoji] of [
      [failing, "commits failing for 42 min", ":red_circle:"],
      [flowing, "alert fired, but commits are flowing (last commit 42 min ago)", ":large_green_circle:"],
    ] as const) {
      const story = storyOf({ incident, report });
      const cardHeader = renderStatusCard(story, NOW).blocks[0];
      expect(cardHeader).toMatchObject({ text: { text: `${emoji} db.events — ${age}` } });
      const home = renderAppHome({ nowMs: NOW, open: [{ story }], recentTables: [] });
      expect(home.blocks).toContainEqual(cardHeader);
      const list = allText(renderStatusList({ nowMs: NOW, incidents: [{ story }] }).blocks);
      expect(list).toContain(`${emoji} *db.events* — ${age} · open`);
    }
  });
});

describe("renderStatusList", () => {
  it("lists open incidents newest first with state, step, age and a thread link", () => {
    const { text, blocks } = renderStatusList({
      nowMs: NOW,
      incidents: [
        {
          story: storySample({
            incidentId: "a",
            table: "db.old",
            workflow: "verifying",
            openedAtMs: NOW - 120 * MIN,
            lastGoodCommitMs: NOW - 120 * MIN,
          }),
        },
        {
          story: storySample({
            incidentId: "b",
            workflow: "awaiting-approval",
            openedAtMs: NOW - 55 * MIN,
            lastGoodCommitMs: NOW - 55 * MIN,
            step: step("raise-commit-retries", "raise commit retries"),
          }),
          permalink: "https://acme.slack.com/archives/C1/p1732870000000100",
        },
        {
          story: storySample({ incidentId: "c", table: "db.x", health: "unknown", openedAtMs: NOW - MIN }),
          permalink: "javascript:alert(1)",
        },
      ],
    });
    expect(text).toBe("3 open incidents");
    const lines = allText(blocks).split("\n");
    expect(lines[0]).toBe("*Open incidents (3)*");
    expect(lines.slice(1)).toEqual([
      // Not diagnosed yet: its age, not a failure's.
      ":white_circle: *db.x* — open for 1 min, last good commit not known · open",
      ":red_circle: *db.events* — commits failing for 55 min · waiting for approval · step 1: raise commit retries · <https://acme.slack.com/archives/C1/p1732870000000100|thread>",
      ":red_circle: *db.old* — commits failing for 2 h · verifying",
    ]);
  });

  it("says when nothing is open and stays within limits for hundreds of incidents", () => {
    expect(allText(renderStatusList({ nowMs: NOW, incidents: [] }).blocks)).toContain("No open incidents");
    const incidents = Array.from({ length: 3000 }, (_, i) => ({
      story: storySample({
        incidentId: `i${i}`,
        table: `ns.table_${i}_${"x".repeat(40)}`,
        openedAtMs: NOW - i * MIN,
      }),
    }));
    const { blocks } = renderStatusList({ nowMs: NOW, incidents });
    expect(blocks.length).toBeLessThanOrEqual(50);
    const shown = allText(blocks).match(/^:red_circle:/gm)?.length ?? 0;
    expect(allText(blocks)).toContain(`… and ${(3000 - shown).toLocaleString("en-US")} more`);
    expect(checkBlocks(blocks, "message")).toEqual([]);
  });
});

describe("renderHelp", () => {
  it("lists every command with an example", () => {
    const all = allText(renderHelp().blocks);
    for (const command of ["diagnose", "audit", "status", "history", "help"]) {
      expect(all).toContain(`\`/iceberg ${command}`);
    }
    expect(all).toContain("e.g. `/iceberg diagnose db.events`");
    // Slack would swallow a raw `<table>` as a control sequence.
    expect(all).toContain("`/iceberg diagnose &lt;table&gt;`");
    expect(all).not.toContain("<table>");
  });
});

describe("renderHistory", () => {
  it("shows who did what and when, oldest first, escaping free text", () => {
    const { blocks } = renderHistory({
      table: "db.events",
      entries: [
        {
          atMs: NOW,
          actor: "U0LEAD",
          action: "approved",
          stepId: "raise-commit-retries",
          detail: "compaction <!channel>",
        },
        { atMs: NOW - MIN, actor: "bot", action: "proposed", stepId: "raise-commit-retries" },
      ],
    });
    const lines = allText(blocks).split("\n");
    expect(lines).toEqual([
      "*History of `db.events`*",
      "<!date^1795946760^{date_short_pretty} {time}|2026-11-29 10:06 UTC> iceberg-bot proposed *raise commit retries*",
      "<!date^1795946820^{date_short_pretty} {time}|2026-11-29 10:07 UTC> <@U0LEAD> approved *raise commit retries*: compaction &lt;!channel&gt;",
    ]);
  });

  it("keeps the most recent entries and counts the earlier ones", () => {
    const entries = Array.from({ length: 100 }, (_, i) => ({
      atMs: NOW + i * MIN,
      actor: "bot",
      action: `event-${i}`,
    }));
    const all = allText(renderHistory({ table: "db.events", entries }).blocks);
    expect(all).toContain("… and 70 earlier entries");
    expect(all).toContain("event-99");
    expect(all).toContain("event-70");
    expect(all).not.toContain("event-69");
    expect(allText(renderHistory({ table: "db.events", entries: [] }).blocks)).toContain(
      "Nothing has happened",
    );
  });
});

describe("renderAppHome", () => {
  const claimed: IncidentStory = { ...card, owner: { user: "U1", sinceMs: NOW - MIN, how: "claimed" } };
  // Nobody handles them: every card has its "I'm on it" row, and Slack would refuse the page if two
  // rows shared a block_id.
  const unowned: IncidentStory = { ...card, owner: undefined };

  it("shows open incidents newest first and tables with incidents in the last 7 days", () => {
    const view = renderAppHome({
      nowMs: NOW,
      open: [
        { story: { ...unowned, incidentId: "old", table: "db.old", openedAtMs: NOW - 300 * MIN } },
        {
          story: { ...unowned, incidentId: "new", table: "db.new", openedAtMs: NOW - 5 * MIN },
          permalink: "https://acme.slack.com/archives/C1/p1",
        },
      ],
      recentTables: [
        { table: "db.orders", incidents: 2, lastOpenedAtMs: NOW - 2 * 24 * 60 * MIN },
        { table: "db.ancient", incidents: 1, lastOpenedAtMs: NOW - 8 * 24 * 60 * MIN },
      ],
    });
    expect(view.type).toBe("home");
    const all = allText(view.blocks as KnownBlock[]);
    expect(all.indexOf("db.new")).toBeLessThan(all.indexOf("db.old"));
    expect(all).toContain("<https://acme.slack.com/archives/C1/p1|Open the thread>");
    expect(all).toContain(
      "`db.orders`: 2 incidents, last opened <!date^1795774020^{date_short_pretty} {time}|2026-11-27 10:07 UTC>",
    );
    expect(all).not.toContain("db.ancient");
    const claimButtons = (view.blocks as KnownBlock[]).flatMap((b) =>
      b.type === "actions" ? b.elements.filter((e) => "text" in e && e.text?.text === "I'm on it") : [],
    );
    expect(claimButtons).toHaveLength(2);
    expect(checkView(view, "home")).toEqual([]);
  });

  it("fits many open incidents into 100 blocks and counts the rest", () => {
    const open = Array.from({ length: 60 }, (_, i) => ({
      story: { ...claimed, incidentId: `i${i}`, openedAtMs: NOW - i * MIN },
    }));
    const view = renderAppHome({ nowMs: NOW, open, recentTables: [] });
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    const shown = view.blocks.filter((b) => b.type === "header").length - 2;
    expect(allText(view.blocks as KnownBlock[])).toContain(`… and ${60 - shown} more open incidents`);
    expect(checkView(view, "home")).toEqual([]);
  });
});

describe("renderUsageError and renderDiagnosingAck", () => {
  it("offers the closest table and a command that works", () => {
    const { text } = renderUsageError({
      kind: "unknown-table",
      input: "db.evnts",
      suggestion: "db.events",
      command: "diagnose",
    });
    expect(text).toBe(
      "Unknown table `db.evnts`. Did you mean `db.events`? Try `/iceberg diagnose db.events`",
    );
  });

  it("neutralises what the person typed", () => {
    const { text } = renderUsageError({ kind: "unknown-command", input: "x` <!channel>" });
    expect(text).toBe("Unknown command `x' &lt;!channel&gt;`. `/iceberg help` lists them all.");
  });

  it("keeps a usage message's code spans as code, and what was typed inert inside them", () => {
    const parsed = parseCommandText("status now");
    if (parsed.kind !== "usage-error" || parsed.error.kind !== "failed")
      throw new Error("expected a usage error");
    expect(renderUsageError(parsed.error).text).toBe(
      ":warning: `/iceberg status` takes no arguments.\nFor example: /iceberg status",
    );
    const typed = renderUsageError({ kind: "failed", message: "Bad name `<!channel>` here *now*" }).text;
    expect(typed).toBe(":warning: Bad name `&lt;!channel&gt;` here \u2217now\u2217");
  });

  it("tells someone who may not approve whom to ask", () => {
    const { text } = renderUsageError({
      kind: "not-permitted",
      action: "approve",
      approvers: ["S0ONCALL", "U0LEAD"],
    });
    expect(text).toBe(":no_entry: You can't approve this step. Ask <!subteam^S0ONCALL> or <@U0LEAD>.");
    expect(renderUsageError({ kind: "missing-table", command: "audit" }).text).toBe(
      "`/iceberg audit` needs a table. Try `/iceberg audit db.events`",
    );
    expect(renderDiagnosingAck("db.events").text).toBe(":mag: Diagnosing `db.events`…");
  });
});

describe("renderAudit", () => {
  it("puts failures first with their values, then the fixes", () => {
    const { text, blocks } = renderAudit({
      reportVersion: 1,
      table: "db.events",
      generatedAt: "2026-11-29T10:00:00Z",
      checks: [
        { id: "write-mode", status: "pass", summary: "copy-on-write for appends only", values: {} },
        {
          id: "retry-budget",
          status: "fail",
          summary: "retries at the default while 2 writers commit",
          values: { "commit.retry.num-retries": null },
          fix: "ALTER TABLE db.events SET TBLPROPERTIES ('commit.retry.num-retries'='10')",
        },
        {
          id: "snapshot-expiry",
          status: "warn",
          summary: "expiry may remove the writer's last snapshot",
          values: { "history.expire.min-snapshots-to-keep": "1" },
          fix: "ALTER TABLE db.events SET TBLPROPERTIES ('history.expire.min-snapshots-to-keep'='5')",
        },
      ],
    });
    expect(text).toBe("Audit of db.events: 1 fail · 1 warn · 1 pass");
    const lines = allText(blocks).split("\n");
    expect(lines[1]).toBe(
      ":x: `fail` *retry-budget*: retries at the default while 2 writers commit (`commit.retry.num-retries` = unset)",
    );
    expect(lines[2]).toContain(":warning: `warn` *snapshot-expiry*");
    expect(lines[3]).toBe(":white_check_mark: `pass` *write-mode*: copy-on-write for appends only");
    const all = allText(blocks);
    expect(all).toContain("*Fixes*\n*retry-budget*\n```ALTER TABLE db.events SET TBLPROPERTIES");
    expect(all.indexOf("*retry-budget*\n```")).toBeLessThan(all.indexOf("*snapshot-expiry*\n```"));
    expect(checkBlocks(blocks, "message")).toEqual([]);
  });
});
