import { describe, expect, it } from "vitest";
import * as yaml from "yaml";
import { noteMessage } from "../../../src/adapters/slack/remediation-slack.js";
import { renderProposal } from "../../../src/adapters/slack/render/proposal.js";
import { recurringBlocks } from "../../../src/adapters/slack/render/recurring.js";
import { renderSweepDigest } from "../../../src/adapters/slack/render/sweep-digest.js";
import { recurringTables } from "../../../src/core/history/fleet.js";
import { lostChanges, matchEarlier, rankSteps } from "../../../src/core/history/match.js";
import { causeKey, historyOf, type IncidentHistory } from "../../../src/core/history/record.js";
import type { StepId } from "../../../src/core/ids.js";
import type { RemediationRecord } from "../../../src/core/remediation/record.js";
import type { StepRun } from "../../../src/core/remediation/walk.js";
import { parseBotConfigText } from "../../../src/core/settings.js";
import { DigestBuilder } from "../../../src/core/sweep/digest.js";
import { earlierIncidents, memoryOf, sayEarlier } from "../../../src/services/history/earlier.js";
import { recordIncidentHistory } from "../../../src/services/history/record-incident.js";
import type { HistoryPort } from "../../../src/services/ports.js";
import type { ProposalView } from "../../../src/services/view-models.js";

const T0 = Date.parse("2026-11-12T09:00:00Z");
const MIN = 60_000;

function run(stepId: StepId, phase: StepRun["phase"], extra: Partial<StepRun> = {}): StepRun {
  return {
    stepId,
    phase,
    change: { kind: "manual", checklist: [] },
    proposedAtMs: T0 + 2 * MIN,
    approvals: [],
    checksDone: 0,
    checksTotal: 3,
    intervalMs: MIN,
    checks: [],
    ...extra,
  };
}

function record(runs: StepRun[], recoveredAtMs?: number): RemediationRecord {
  return {
    incidentId: "inc-1",
    table: "db.events",
    channel: "C1",
    walk: {
      table: "db.events",
      playbookId: "commit-failures",
      status: "resolved",
      startedAtMs: T0,
      history: runs,
    },
    proposals: runs.map((r, i) => ({ id: `p${i + 1}`, stepId: r.stepId, atMs: r.proposedAtMs })),
    applySeq: 1,
    revertSeq: 0,
    ...(recoveredAtMs !== undefined ? { recoveredAtMs } : {}),
  };
}

const REPORT = {
  verdict: "commit-conflict" as const,
  findings: [
    {
      id: "commit-conflict" as const,
      severity: "critical" as const,
      summary: "Conflict",
      evidence: [
        { source: "flink" as const, detail: "CommitFailedException at 2026-11-12T08:59:00Z", data: {} },
      ],
    },
    {
      id: "competing-appends" as const,
      severity: "warning" as const,
      summary: "Spark appends",
      evidence: [{ source: "catalog" as const, detail: "38 appends | *bold*", data: {} }],
    },
    {
      id: "default-retry-budget" as const,
      severity: "warning" as const,
      summary: "Default retries",
      evidence: [{ source: "catalog" as const, detail: "4", data: {} }],
    },
  ],
};

function firstIncident(): IncidentHistory {
  const retries = run("raise-commit-retries", "ineffective", {
    change: {
      kind: "table-properties",
      table: "db.events",
      changes: [{ key: "commit.retry.num-retries", current: null, proposed: "10" }],
    },
    approvals: [{ user: "U0ALICE", confirmations: [], atMs: T0 + 3 * MIN }],
    appliedAtMs: T0 + 3 * MIN,
    appliedBy: "bot",
    checksDone: 3,
    endedAtMs: T0 + 10 * MIN,
  });
  const lessOften = run("commit-less-often", "recovered", {
    proposedAtMs: T0 + 11 * MIN,
    appliedAtMs: T0 + 12 * MIN,
    appliedBy: "U0ALICE",
    checksDone: 1,
    endedAtMs: T0 + 20 * MIN,
  });
  return historyOf({
    incident: { id: "inc-1", table: "db.events", channel: "C1", openedAt: T0 },
    state: "resolved",
    closedAtMs: T0 + 20 * MIN,
    walk: record([retries, lessOften], T0 + 18 * MIN),
    report: REPORT,
    diagnosedAtMs: T0 + MIN,
  });
}

describe("incident history", () => {
  it("keeps each step's outcome, who approved and when the writer recovered", () => {
    const h = firstIncident();
    expect(h.format).toBe(1);
    expect(causeKey(REPORT)).toEqual({ triage: "commit-conflict", rootCause: "competing-appends" });
    expect([h.triage, h.rootCause]).toEqual(["commit-conflict", "competing-appends"]);
    expect(h.steps.map((s) => [s.stepId, s.outcome])).toEqual([
      ["raise-commit-retries", "did-not-help"],
      ["commit-less-often", "fixed"],
    ]);
    expect(h.steps[0]!.approvedBy).toEqual(["U0ALICE"]);
    expect(h.steps[0]!.setProperties).toEqual({ "commit.retry.num-retries": "10" });
    expect(h.fixedBy).toBe("commit-less-often");
    expect(h.steps[1]!.recoveredAfterMs).toBe(6 * MIN);
  });

  it("matches only the same triage finding and root cause, and ranks the fixing step first", () => {
    const h = firstIncident();
    const match = matchEarlier([h], { table: "db.events", ...REPORT }, "inc-2");
    expect(match).toMatchObject({ incidentId: "inc-1", fixedBy: "commit-less-often", fixedAfterMs: 6 * MIN });
    expect(match!.didNotHelp).toEqual(["raise-commit-retries"]);
    const other = {
      verdict: "commit-conflict",
      findings: [{ id: "commit-conflict" as const }, { id: "rewrite-in-window" as const }],
    };
    expect(matchEarlier([h], other)).toBeUndefined();
    expect(matchEarlier([h], { table: "db.other", ...REPORT })).toBeUndefined();
    expect(matchEarlier([h], { verdict: "healthy", findings: [{ id: "healthy" as const }] })).toBeUndefined();

    const ranked = rankSteps(["raise-commit-retries", "commit-less-often", "one-committer-per-table"], match);
    expect(ranked).toEqual([
      { stepId: "commit-less-often", fixedBefore: true, didNotHelp: false },
      { stepId: "one-committer-per-table", fixedBefore: false, didNotHelp: false },
      { stepId: "raise-commit-retries", fixedBefore: false, didNotHelp: true },
    ]);
    // Without a match the playbook's order stands.
    expect(rankSteps(["raise-commit-retries", "commit-less-often"], undefined).map((r) => r.stepId)).toEqual([
      "raise-commit-retries",
      "commit-less-often",
    ]);
  });

  it("names a property change that fixed it before and that the table no longer holds", () => {
    const fixedByRetries = historyOf({
      incident: { id: "inc-1", table: "db.events", channel: "C1", openedAt: T0 },
      state: "resolved",
      closedAtMs: T0 + 10 * MIN,
      walk: record(
        [
          run("raise-commit-retries", "recovered", {
            change: {
              kind: "table-properties",
              table: "db.events",
              changes: [
                { key: "commit.retry.num-retries", current: null, proposed: "10" },
                { key: "commit.retry.min-wait-ms", current: null, proposed: "1000" },
              ],
            },
            appliedAtMs: T0 + 3 * MIN,
            appliedBy: "bot",
          }),
        ],
        T0 + 9 * MIN,
      ),
      report: REPORT,
    });
    const lost = lostChanges([fixedByRetries], { "commit.retry.min-wait-ms": "1000" });
    expect(lost).toEqual([
      {
        incidentId: "inc-1",
        stepId: "raise-commit-retries",
        appliedAtMs: T0 + 3 * MIN,
        key: "commit.retry.num-retries",
        setTo: "10",
        now: null,
      },
    ]);
    expect(
      lostChanges([fixedByRetries], { "commit.retry.num-retries": "10", "commit.retry.min-wait-ms": "1000" }),
    ).toEqual([]);
  });

  it("says it in one line with a date token, and marks a proposal that did not help", () => {
    const note = noteMessage({
      kind: "seen-before",
      earlier: {
        incidentId: "inc-1",
        openedAtMs: T0,
        fixedBy: "raise-commit-retries",
        fixedAfterMs: 6 * MIN,
        didNotHelp: ["commit-less-often"],
        lost: [{ key: "commit.retry.num-retries", setTo: "10", now: null }],
      },
    });
    const text = JSON.stringify(note.blocks);
    expect(text).toContain(
      `Seen on <!date^${T0 / 1000}^{date_short}|2026-11-12>: *raise commit retries* fixed it in 6 min.`,
    );
    expect(text).toContain("Did not help then: commit less often.");
    expect(text).toContain("`commit.retry.num-retries` was set to `10` then and is unset now");

    const view: ProposalView = {
      incidentId: "inc-2",
      proposalId: "p1",
      table: "db.events",
      step: {
        id: "commit-less-often",
        playbook: "commit-failures",
        summary: "Commit less often",
        change: { kind: "manual", checklist: ["Longer interval"] },
        automatic: false,
      },
      why: "Commits every few seconds",
      risk: { level: "low", detail: "none" },
      verification: { checks: 3, intervalSeconds: 60 },
      earlier: { outcome: "did-not-help", incidentId: "inc-1" },
    };
    expect(JSON.stringify(renderProposal(view).blocks)).toContain("This step did not help the last time");
    expect(JSON.stringify(renderProposal({ ...view, earlier: undefined }).blocks)).not.toContain("last time");
  });

  it("lists on App Home the tables that failed more than once, with the recurring cause", () => {
    const h = firstIncident();
    const again = {
      ...h,
      incidentId: "inc-2",
      openedAtMs: T0 + 86_400_000,
      closedAtMs: T0 + 86_400_000 + 20 * MIN,
    };
    const once = { ...h, incidentId: "inc-3", table: "db.orders" };
    const recurring = recurringTables([h, again, once]);
    expect(recurring.map((r) => [r.table, r.incidents, r.times])).toEqual([["db.events", 2, 2]]);
    const text = JSON.stringify(recurringBlocks(recurring, 30));
    expect(text).toContain("Failed more than once in the last 30 days");
    expect(text).toContain("`db.events`: 2 incidents, 2× commit conflict (competing appends)");
    expect(recurringBlocks([], 30)).toEqual([]);
  });
});

describe("recurring tables in the sweep digest", () => {
  it("lists the tables that failed more than once with their recurring cause, as App Home does", () => {
    const h = firstIncident();
    const again = { ...h, incidentId: "inc-2", openedAtMs: T0 + 86_400_000 };
    const recurring = recurringTables([h, again, { ...h, incidentId: "inc-3", table: "db.orders" }]);
    const builder = new DigestBuilder({ sweepId: "s1", startedAtMs: T0, hasPrevious: false });
    const plain = builder.finish(T0 + MIN);
    const withRecurring = { ...plain, recurring: { days: 30, tables: recurring } };
    const text = JSON.stringify(renderSweepDigest(withRecurring).blocks);
    expect(text).toContain("Failed more than once in the last 30 days");
    expect(text).toContain("`db.events`: 2 incidents, 2× commit conflict (competing appends)");
    expect(text).not.toContain("db.orders");
    // The same lines as App Home.
    expect(text).toContain(JSON.stringify(recurringBlocks(recurring, 30)[0]).slice(1, -1));
    // No recurring table, no section.
    expect(JSON.stringify(renderSweepDigest(plain).blocks)).not.toContain("Failed more than once");
  });
});

describe("history.suggestions: false", () => {
  const histories = new Map<string, IncidentHistory>();
  const port: HistoryPort = {
    save: async (record) => {
      histories.set(record.incidentId, record);
    },
    list: async (table) =>
      [...histories.values()].filter((x) => x.table === table).sort((a, b) => b.openedAtMs - a.openedAtMs),
    get: async (_table, id) => histories.get(id),
    tablesWithHistory: async () => [...new Set([...histories.values()].map((x) => x.table))],
  };
  const log = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };

  it("keeps recording incidents but neither names the earlier one nor reorders the steps", async () => {
    const off = parseBotConfigText("history:\n  suggestions: false\n", "test", yaml);
    const on = parseBotConfigText("", "test", yaml);
    expect(off.history.suggestions).toBe(false);
    const first = firstIncident();
    const walk = record([]);
    const saved = await recordIncidentHistory(
      {
        history: port,
        log,
        store: {
          get: async () => ({ id: "inc-1", table: "db.events", channel: "C1", openedAt: T0 }) as never,
          getReport: async () => REPORT as never,
          timeline: async () => [],
        },
      },
      walk,
      "resolved",
      T0 + 20 * MIN,
    );
    // Recording does not depend on the setting: the record is there to list and count.
    expect(saved?.incidentId).toBe("inc-1");
    await port.save(first);
    expect((await port.list("db.events")).map((x) => x.incidentId)).toEqual(["inc-1"]);

    // With suggestions on, the same history is a match and reorders the steps.
    const withOn = await earlierIncidents({ history: port, bot: on, log }, "db.events", "inc-2");
    const allowed: StepId[] = ["raise-commit-retries", "commit-less-often"];
    expect(rankSteps(allowed, matchEarlier(withOn, REPORT, "inc-2"))[0]!.stepId).toBe("commit-less-often");
    // Off: nothing earlier is read, so no "Seen on" line is sent and the playbook's order stands.
    const withOff = await earlierIncidents({ history: port, bot: off, log }, "db.events", "inc-2");
    expect(withOff).toEqual([]);
    const sent: unknown[] = [];
    const slack = { send: async (m: unknown) => void sent.push(m) } as never;
    const match = await sayEarlier(
      { history: port, bot: off, log, slack },
      "inc-2",
      1,
      REPORT as never,
      withOff,
      undefined,
    );
    expect(match).toBeUndefined();
    expect(sent).toEqual([]);
    expect(memoryOf(match)).toBeUndefined();
    expect(rankSteps(allowed, matchEarlier(withOff, REPORT, "inc-2")).map((s) => s.stepId)).toEqual(allowed);
  });
});
