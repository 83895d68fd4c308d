// The incident's one story (core/story) and the card rendered from it: the card follows the
// walk's saved record, its colour is commit health alone, and the bot's own refused credential is
// never the writer's failure.

import { describe, expect, it } from "vitest";
import { renderStatusCard } from "../../../src/adapters/slack/render/status-card.js";
import { renderStatusList } from "../../../src/adapters/slack/render/status-list.js";
import type { Incident } from "../../../src/core/incident/model.js";
import type { RemediationRecord } from "../../../src/core/remediation/record.js";
import type { Playbook } from "../../../src/core/remediation/schema.js";
import type { StepRun } from "../../../src/core/remediation/walk.js";
import type { Report } from "../../../src/core/report/schema.js";
import { storyOf } from "../../../src/core/story/story.js";
import { recoveredAfterWords } from "../../../src/core/words/recovery.js";

const NOW = Date.parse("2026-11-29T10:07:00Z");
const MIN = 60_000;

const incident: Incident = {
  id: "inc-1",
  table: "db.events",
  state: "verifying",
  channel: "C0INC",
  openedAt: NOW - 40 * MIN,
  updatedAt: NOW - 5 * MIN,
  rootTs: "1.0",
  alertCount: 1,
  diagnoses: 1,
  cardVersion: 3,
};

const ok = { status: "ok" as const };

const failingReport: Report = {
  reportVersion: 1,
  table: "db.events",
  generatedAt: new Date(NOW - 38 * MIN).toISOString(),
  verdict: "commit-conflict",
  writer: {
    kind: "flink",
    id: "c7e1aa00",
    name: "events-ingest",
    lastCommitAt: new Date(NOW - 55 * MIN).toISOString(),
  },
  findings: [
    {
      id: "commit-conflict",
      severity: "critical",
      summary: "commit conflict (CommitFailedException, retries exhausted)",
      evidence: [{ source: "flink", detail: "CommitFailedException 12 times", data: {} }],
    },
  ],
  nextStep: null,
  sources: { catalog: ok, flink: ok, connect: ok, prometheus: ok },
};

const change = {
  kind: "table-properties" as const,
  table: "db.events",
  changes: [{ key: "commit.retry.num-retries", current: null, proposed: "10" }],
};

function run(over: Partial<StepRun> & Pick<StepRun, "stepId" | "phase">): StepRun {
  return {
    change: change as never,
    proposedAtMs: NOW - 30 * MIN,
    approvals: [{ user: "U0ALICE", atMs: NOW - 29 * MIN, confirmations: [] }],
    appliedAtMs: NOW - 28 * MIN,
    appliedBy: "bot",
    previous: { "commit.retry.num-retries": null },
    checksDone: 0,
    checksTotal: 3,
    intervalMs: 5 * MIN,
    checks: [],
    ...over,
  };
}

function record(
  walk: Partial<RemediationRecord["walk"]>,
  proposals = [{ id: "p1", stepId: "raise-commit-retries" as const, atMs: NOW - 30 * MIN }],
): RemediationRecord {
  return {
    incidentId: "inc-1",
    table: "db.events",
    channel: "C0INC",
    walk: {
      table: "db.events",
      playbookId: "commit-failures",
      status: "active",
      startedAtMs: NOW - 30 * MIN,
      history: [],
      ...walk,
    },
    proposals,
    applySeq: 1,
    revertSeq: 0,
  };
}

const playbook = {
  id: "commit-failures",
  steps: [
    {
      id: "raise-commit-retries",
      title: "Give the writer a larger commit retry budget",
      automatic: true,
      transitions: { ineffective: ["commit-less-often"] },
    },
    {
      id: "commit-less-often",
      title: "Commit less often",
      automatic: true,
      transitions: { ineffective: [] },
    },
  ],
  terminals: [],
} as unknown as Playbook;

const checks = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    index: i + 1,
    atMs: NOW - (20 - i * 5) * MIN,
    recovered: false,
    detail: "no new snapshot",
  }));

const text = (m: { text: string; blocks: unknown }) => `${m.text}\n${JSON.stringify(m.blocks)}`;

describe("storyOf and the card", () => {
  it("follows the thread: after the last check without recovery the card offers Revert and the next step", () => {
    const verifying = record({
      current: run({ stepId: "raise-commit-retries", phase: "verifying", checksDone: 2, checks: checks(2) }),
    });
    const during = storyOf({ incident, report: failingReport, walk: verifying, playbook });
    expect(during.workflow).toBe("verifying");
    expect(during.step?.check).toEqual({ index: 2, total: 3 });

    // A read-only check counts its checks on the card as its thread message does.
    const readOnlyRun = record({
      current: run({
        stepId: "raise-commit-retries",
        phase: "verifying",
        checksDone: 2,
        checks: checks(2),
        change: { kind: "read-only-check", statement: "SELECT 1", language: "sql", checklist: [] } as never,
      }),
    });
    const reading = storyOf({ incident, report: failingReport, walk: readOnlyRun, playbook });
    expect(reading.step?.readOnly).toBe(true);
    expect(reading.step?.check).toEqual({ index: 2, total: 3 });
    expect(text(renderStatusCard(reading, NOW))).toContain("check 2 of 3");

    // The third check: the machine retires the step as ineffective and waits for a person.
    const ended = record({
      history: [
        run({
          stepId: "raise-commit-retries",
          phase: "ineffective",
          checksDone: 3,
          checks: checks(3),
          endedAtMs: NOW - 10 * MIN,
        }),
      ],
    });
    const story = storyOf({ incident, report: failingReport, walk: ended, playbook });
    expect(story.step?.state).toBe("no-recovery");
    expect(story.workflow).toBe("awaiting-approval");
    expect(story.step?.decisions.map((d) => d.kind)).toEqual(["revert", "next"]);
    const card = text(renderStatusCard(story, NOW));
    expect(card).not.toMatch(/check \d+ of \d+/);
    expect(card).not.toContain("verifying");
    expect(card).toContain("no recovery after 3 checks");
    expect(card).toContain("playbook_revert");
    expect(card).toContain("Next step: Commit less often");
    // /iceberg status says the same workflow and colour.
    const line = text(renderStatusList({ nowMs: NOW, incidents: [{ story: story }] }));
    expect(line).toContain(":red_circle: *db.events*");
    expect(line).toContain("waiting for approval");
  });

  it("says a skip and a revert on the card", () => {
    const skipped = storyOf({
      incident,
      report: failingReport,
      walk: record({
        history: [
          run({ stepId: "raise-commit-retries", phase: "skipped", skippedBy: "U0BOB", endedAtMs: NOW - MIN }),
        ],
      }),
      playbook,
    });
    expect(text(renderStatusCard(skipped, NOW))).toContain("was skipped");
    const reverted = storyOf({
      incident,
      report: failingReport,
      walk: record({
        history: [run({ stepId: "raise-commit-retries", phase: "reverted", checks: checks(3) })],
      }),
      playbook,
    });
    const card = text(renderStatusCard(reverted, NOW));
    expect(card).toContain("was reverted");
    expect(card).toContain("Next step: Commit less often");
    expect(card).not.toContain("playbook_revert");
  });

  it("colours by commit health, not by the workflow: red while a proposal waits and while verifying", () => {
    for (const phase of ["proposed", "verifying"] as const) {
      const story = storyOf({
        incident,
        report: failingReport,
        walk: record({
          current: run({ stepId: "raise-commit-retries", phase, checksDone: 1, checks: checks(1) }),
        }),
        playbook,
      });
      expect(story.health).toBe("failing");
      const card = renderStatusCard(story, NOW);
      expect(card.text.startsWith(":red_circle:"), card.text).toBe(true);
      expect(text(card)).not.toMatch(/large_yellow_circle|hourglass/);
    }
    const idle: Report = {
      ...failingReport,
      verdict: "healthy",
      findings: [
        {
          id: "healthy",
          severity: "info",
          summary: "healthy",
          evidence: [{ source: "catalog", detail: "x", data: {} }],
        },
        {
          id: "writer-idle",
          severity: "info",
          summary: "idle",
          evidence: [{ source: "catalog", detail: "x", data: {} }],
        },
      ],
    };
    expect(renderStatusCard(storyOf({ incident, report: idle }), NOW).text).toMatch(/^:large_blue_circle:/);
    expect(renderStatusCard(storyOf({ incident: { ...incident, state: "diagnosing" } }), NOW).text).toMatch(
      /^:white_circle:/,
    );
  });

  it("counts an open item from the moment it is found: on the card, App Home's card and /iceberg status", () => {
    const duplicate: Report = {
      ...failingReport,
      verdict: "commit-state-unknown",
      findings: [
        {
          id: "commit-state-unknown",
          severity: "critical",
          summary: "the commit landed and a later snapshot committed the same data again",
          answered: true,
          answer: "duplicate",
          evidence: [
            {
              source: "catalog",
              detail: "Snapshots 1 and 2 add the same data",
              data: { duplicate: true, snapshotIds: ["1", "2"] },
            },
          ],
        },
      ],
    };
    const story = storyOf({ incident: { ...incident, state: "awaiting-approval" }, report: duplicate });
    expect(story.openItems).toHaveLength(1);
    const card = renderStatusCard(story, NOW);
    expect(text(card)).toContain(" · 1 open item · ");
    // Not yet "Still open": that is said with the recovery; no Mark done before it.
    expect(text(card)).not.toContain("incident_item_done");
    const list = renderStatusList({ nowMs: NOW, incidents: [{ story: story }] });
    expect(text(list)).toContain("1 open item");
  });

  it("is grey, not red, while the catalog does not answer, even when Flink shows the job failing", () => {
    // catalog-down-flink-failing: the catalog answers 503; Flink shows the job restarting.
    const down: Report = {
      ...failingReport,
      verdict: "commit-failing",
      findings: [
        {
          id: "commit-failing",
          severity: "critical",
          summary: "The job fails while committing",
          evidence: [{ source: "flink", detail: "CommitFailedException in the job", data: {} }],
        },
      ],
      sources: { ...failingReport.sources, catalog: { status: "unavailable", error: "HTTP 503" } },
    };
    const story = storyOf({ incident: { ...incident, state: "open" }, report: down });
    expect(story.health).toBe("unknown");
    const card = renderStatusCard(story, NOW);
    expect(card.text).toMatch(/^:white_circle:/);
    expect(text(card)).not.toContain("Failing:");
    // A check that could not read the snapshots leaves the colour grey too, catalog back or not.
    const unchecked = storyOf({
      incident,
      report: failingReport,
      walk: record({
        current: run({
          stepId: "raise-commit-retries",
          phase: "verifying",
          checksDone: 1,
          checks: [
            {
              index: 1,
              atMs: NOW - 10 * MIN,
              recovered: false,
              detail: "could not read the snapshots",
              outcome: "could-not-check",
              unseen: [{ source: "catalog", reason: "HTTP 503" }],
            } as never,
          ],
        }),
      }),
      playbook,
    });
    expect(unchecked.health).toBe("unknown");
  });

  it("says the checks could not check, never 'no recovery', when they could not read the snapshots", () => {
    // catalog-down-flink-failing: every check of the read-only step found the catalog down.
    const unread = (index: number) =>
      ({
        index,
        atMs: NOW - (10 - index) * MIN,
        recovered: false,
        detail: "could not read the snapshots",
        outcome: "could-not-check",
        unseen: [{ source: "catalog", reason: "HTTP 503" }],
      }) as never;
    const story = storyOf({
      incident: { ...incident, state: "stalled" },
      report: failingReport,
      walk: record({
        status: "stalled",
        current: run({
          stepId: "raise-commit-retries",
          phase: "ineffective",
          checksDone: 3,
          checks: [unread(1), unread(2), unread(3)],
        }),
      }),
      playbook,
    });
    expect(story.step?.state).toBe("could-not-check");
    const card = text(renderStatusCard(story, NOW));
    expect(card).toContain("could not check in 3 checks");
    expect(card).not.toContain("no recovery");
  });

  it("never calls the bot's refused credential the writer's failure", () => {
    // catalog-refuses-bot-no-other-source: the catalog answers 401, the only writer is a connector
    // whose tasks run; the verdict rests on the catalog's silence alone.
    const refused: Report = {
      ...failingReport,
      verdict: "commit-failing",
      writer: { kind: "connect", id: "orders-sink" },
      findings: [
        {
          id: "commit-failing",
          severity: "critical",
          summary: "The catalog refused the bot's credential, so orders-sink's commits cannot be confirmed",
          evidence: [
            { source: "catalog", detail: "The Iceberg REST catalog refused the bot's credential", data: {} },
          ],
        },
      ],
      sources: {
        catalog: { status: "unavailable", error: "HTTP 401 from the catalog", httpStatus: 401 },
        flink: { status: "not-configured" },
        connect: ok,
        prometheus: { status: "not-configured" },
      },
    };
    const story = storyOf({ incident: { ...incident, state: "open" }, report: refused });
    expect(story.health).toBe("unknown");
    expect(story.unseen).toEqual([
      { kind: "catalog", reason: "HTTP 401 from the catalog", refusedBot: true },
    ]);
    const card = renderStatusCard(story, NOW);
    const all = text(card);
    expect(card.text).toMatch(/^:white_circle:/);
    expect(all).not.toContain("Failing:");
    expect(all).toContain("refused the bot's credential");
    expect(all).toContain("ICEBERG_CATALOG_TOKEN");
    expect(text(renderStatusList({ nowMs: NOW, incidents: [{ story }] }))).toContain(":white_circle: *");
  });

  it("names who handles the incident: who claimed it, else the first person who acted", () => {
    const walk = record({ current: run({ stepId: "raise-commit-retries", phase: "verifying" }) });
    expect(storyOf({ incident, report: failingReport, walk }).owner).toEqual({
      user: "U0ALICE",
      sinceMs: NOW - 29 * MIN,
      how: "acted",
    });
    const claimed = storyOf({
      incident,
      report: failingReport,
      walk,
      claim: { user: "U0BOB", atMs: NOW - 35 * MIN },
    });
    expect(claimed.owner).toEqual({ user: "U0BOB", sinceMs: NOW - 35 * MIN, how: "claimed" });
    expect(text(renderStatusCard(claimed, NOW))).toContain("*Handled by:* <@U0BOB>");
    const nobody = renderStatusCard(storyOf({ incident, report: failingReport }), NOW);
    expect(text(nobody)).toContain("incident_claim");
  });

  it("measures recovery once, change to first commit, and keeps people's remarks in order", () => {
    const resolved = record({
      status: "resolved",
      history: [
        run({
          stepId: "raise-commit-retries",
          phase: "recovered",
          checks: checks(1),
          endedAtMs: NOW - 15 * MIN,
        }),
      ],
    });
    resolved.recoveredAtMs = NOW - 18 * MIN;
    const story = storyOf({
      incident: { ...incident, state: "resolved", resolvedAt: NOW - 15 * MIN },
      report: failingReport,
      walk: resolved,
      playbook,
      remarks: [
        { atMs: NOW - 10 * MIN, user: "U0BOB", text: "second" },
        { atMs: NOW - 20 * MIN, user: "U0ALICE", text: "first" },
      ],
    });
    expect(story.health).toBe("flowing");
    expect(story.recovery).toMatchObject({ atMs: NOW - 18 * MIN, afterChangeMs: 10 * MIN, credit: "fixed" });
    expect(story.remarks.map((r) => r.text)).toEqual(["first", "second"]);
    expect(text(renderStatusCard(story, NOW))).toContain(
      "*Fixed by:* Give the writer a larger commit retry budget; commits resumed 10 min after the change",
    );
  });

  it("says a step done by hand resumed after its proposal, in the words of the thread's recovery message", () => {
    const resolved = record({
      status: "resolved",
      history: [
        run({
          stepId: "raise-commit-retries",
          phase: "recovered",
          appliedBy: "U0ALICE",
          approvals: [],
          checks: checks(1),
          endedAtMs: NOW - 15 * MIN,
        }),
      ],
    });
    resolved.recoveredAtMs = NOW - 18 * MIN;
    const story = storyOf({
      incident: { ...incident, state: "resolved", resolvedAt: NOW - 15 * MIN },
      report: failingReport,
      walk: resolved,
      playbook,
    });
    const card = text(renderStatusCard(story, NOW));
    expect(card).toContain(`commits resumed ${recoveredAfterWords(10 * MIN, true)}`);
    expect(card).toContain("after the proposal (done by hand)");
  });
});
