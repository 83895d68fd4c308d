// The postmortem as a rendering of the incident's story: its timeline runs from the writer's last
// good commit and first failure to the recovery with people's remarks in it; the impact and the
// time to recover count from the last good commit (not the alert); every time is absolute UTC;
// open items and risks are listed with their state and counted the way the card counts them; and
// no word from outside (a job, a table, evidence, a checklist, a remark) becomes a link, a heading
// or a quote in the markdown or in Slack.

import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { renderPostmortemMarkdown } from "../../../src/adapters/render/postmortem-markdown.js";
import { renderPostmortemNote } from "../../../src/adapters/slack/postmortem-slack.js";
import { escapeMrkdwn } from "../../../src/adapters/slack/render/limits.js";
import { buildPostmortem } from "../../../src/core/history/postmortem.js";
import { HISTORY_FORMAT, type IncidentHistory } from "../../../src/core/history/record.js";
import type { IncidentStory } from "../../../src/core/story/model.js";
import type { OpenItem } from "../../../src/core/verification/open-items.js";

const MIN = 60_000;
const ALERT = Date.parse("2026-12-02T04:51:10Z");
const LAST_GOOD = ALERT - 65 * MIN;
const RECOVERED = ALERT + 5 * MIN;

function history(overrides: Partial<IncidentHistory> = {}): IncidentHistory {
  return {
    format: HISTORY_FORMAT,
    incidentId: "inc-1",
    table: "db.events",
    channel: "C1",
    state: "resolved",
    openedAtMs: ALERT,
    closedAtMs: RECOVERED,
    diagnosedAtMs: ALERT,
    verdict: "commit-error",
    findings: ["commit-error"],
    triage: "commit-error",
    writerKind: "flink",
    steps: [
      {
        stepId: "renew-catalog-credential",
        proposedAtMs: ALERT,
        approvedBy: [],
        appliedAtMs: ALERT + 10_000,
        appliedBy: "U0ALICE",
        outcome: "fixed",
        recoveredAtMs: RECOVERED,
        recoveredAfterMs: RECOVERED - ALERT - 10_000,
      },
    ],
    fixedBy: "renew-catalog-credential",
    recoveredAtMs: RECOVERED,
    openItems: [],
    ...overrides,
  };
}

/** The token-expired incident: last good commit 65 min before the alert, fixed by hand. */
function story(overrides: Partial<IncidentStory> = {}): IncidentStory {
  return {
    incidentId: "inc-1",
    table: "db.events",
    channel: "C1",
    workflow: "resolved",
    openedAtMs: ALERT,
    closedAtMs: RECOVERED,
    health: "flowing",
    writer: { kind: "flink", id: "fa53c0de", name: "events-ingest" },
    lastGoodCommitMs: LAST_GOOD,
    firstFailureMs: LAST_GOOD + 7 * MIN,
    unseen: [],
    verdict: {
      id: "commit-error",
      summary:
        "The catalog refuses the credential at 2026-12-02T03:53:40.993Z (NotAuthorizedException): its commits fail until the credential is renewed",
    },
    evidence: [
      "NotAuthorizedException: Token expired — seen 3 times, first 2026-12-02T03:53:40.993Z, last 2026-12-02T04:33:40.993Z",
      "Newest snapshot from Flink job events-ingest (fa53…): 3177396086757885269 at 2026-12-02T03:46:10Z (1 h 5 min ago; expected every 5 min)",
    ],
    steps: [
      {
        stepId: "renew-catalog-credential",
        index: 1,
        state: "done",
        change: {
          kind: "manual",
          checklist: ["Restart the job from its latest savepoint (failing since 2026-12-02T03:53:40.993Z)"],
        },
        proposedAtMs: ALERT,
        approvedBy: [],
        changeAtMs: ALERT + 10_000,
        changeBy: "U0ALICE",
        byHand: true,
        checks: [],
        decisions: [],
      },
    ],
    recovery: {
      atMs: RECOVERED,
      changeAtMs: ALERT + 10_000,
      afterChangeMs: RECOVERED - ALERT - 10_000,
      credit: "fixed",
      stepId: "renew-catalog-credential",
    },
    openItems: [],
    owner: { user: "U0ALICE", sinceMs: ALERT + 60_000, how: "claimed" },
    remarks: [{ atMs: ALERT + 2 * MIN, user: "U0BOB", text: "the vault rotation ran at 03:50, that's it" }],
    alerts: { received: 1 },
    ...overrides,
  };
}

const DUPLICATE: OpenItem = {
  id: "remove-duplicate-2381",
  kind: "todo",
  findingId: "commit-state-unknown",
  text: "Remove the duplicate commit: snapshot 2381 holds the same data as snapshot 8204",
  statement:
    "SELECT data_file.file_path FROM spark_catalog.db.events.entries WHERE snapshot_id = 2381 AND status = 1;",
};
const AT_RISK: OpenItem = {
  id: "keep-writer-last-snapshot",
  kind: "risk",
  findingId: "writer-last-snapshot-at-risk",
  text: "Snapshot expiry can remove the writer's last checkpoint snapshot: keep it until the writer has committed a newer one",
};

describe("the postmortem, a rendering of the story", () => {
  it("counts the time to recover and the impact from the writer's last good commit, not the alert", () => {
    const pm = buildPostmortem({ story: story(), history: history() });
    expect(pm.durations.toRecoverMs).toBe(70 * MIN);
    expect(pm.impact).toEqual({ fromMs: LAST_GOOD, toMs: RECOVERED, noDataMs: 70 * MIN, recovered: true });
    const markdown = renderPostmortemMarkdown(pm);
    expect(markdown).toContain(
      "- Time to recover (the writer's last good commit to its first commit again): 1 h 10 min",
    );
    expect(markdown).not.toMatch(/Time to recover[^\n]*: 5 min/);
    expect(markdown).toContain(
      "No data of Flink job events-ingest landed from 2026-12-02 03:46 UTC to 2026-12-02 04:56 UTC (its first commit again): 1 h 10 min.",
    );
    expect(markdown).toContain("- Time to detect (first failure to the alert): 58 min");
    expect(markdown).toContain("Owner: U0ALICE (took it on).");
  });

  it("counts the commits and records missed where the evidence gives the cadence, else says unknown", () => {
    // Last good commit 70 min before the first commit again, a commit every 5 min: 13 slots missed.
    const known = buildPostmortem({
      story: story({ cadence: { intervalMs: 5 * MIN, recordsPerCommit: 20_000 } }),
      history: history(),
    });
    expect(known.impact.missed).toEqual({ commits: 13, everyMs: 5 * MIN, records: 260_000 });
    const markdown = renderPostmortemMarkdown(known);
    expect(markdown).toContain("Commits missed: 13 commits (it commits every 5 min).");
    expect(markdown).toContain("Records missed: about 260,000");
    const noRecords = renderPostmortemMarkdown(
      buildPostmortem({ story: story({ cadence: { intervalMs: 5 * MIN } }), history: history() }),
    );
    expect(noRecords).toContain("Commits missed: 13 commits");
    expect(noRecords).toContain("Records missed: unknown");
    const unknown = renderPostmortemMarkdown(buildPostmortem({ story: story(), history: history() }));
    expect(unknown).toContain("Commits missed: unknown");
    expect(unknown).toContain("Records missed: unknown");
  });

  it("says the recovery minutes of a step done by hand in the thread's words", () => {
    const markdown = renderPostmortemMarkdown(buildPostmortem({ story: story(), history: history() }));
    expect(markdown).toContain("resumed 4 min 50 s after the proposal (done by hand)");
    expect(markdown).not.toContain("after the change");
  });

  it("a writer that kept committing did not stop: no outage, no credit, the duplicate still open", () => {
    const flowing = story({
      recovery: {
        atMs: RECOVERED,
        changeAtMs: ALERT + 10_000,
        afterChangeMs: RECOVERED - ALERT - 10_000,
        credit: "already-flowing",
        stepId: "renew-catalog-credential",
      },
      openItems: [DUPLICATE],
    });
    const pm = buildPostmortem({ story: flowing, history: history({ fixedBy: undefined }) });
    expect(pm.fix).toBeUndefined();
    expect(pm.impact.noDataMs).toBeUndefined();
    const markdown = renderPostmortemMarkdown(pm);
    expect(markdown).not.toContain("stopped committing");
    expect(markdown).toContain("kept committing");
    expect(markdown).toContain("1 item remains open.");
  });

  it("runs the timeline from the last good commit and first failure to the recovery, with people's remarks", () => {
    const pm = buildPostmortem({ story: story(), history: history() });
    expect(pm.timeline.map((e) => e.kind)).toEqual([
      "last-good-commit",
      "first-failure",
      "alert-fired",
      "diagnosis",
      "proposal",
      "change",
      "claimed",
      "remark",
      "recovery",
    ]);
    const markdown = renderPostmortemMarkdown(pm);
    expect(markdown).toContain("| 2026-12-02 03:46 UTC | Last good commit of Flink job events-ingest |");
    expect(markdown).toContain(
      "| 2026-12-02 04:53 UTC | U0BOB wrote: the vault rotation ran at 03:50, that's it |",
    );
  });

  it("says every time as absolute UTC: no raw ISO stamp, nothing 'ago'", () => {
    const markdown = renderPostmortemMarkdown(buildPostmortem({ story: story(), history: history() }));
    expect(markdown).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    expect(markdown).not.toMatch(/\bago\b/);
    expect(markdown).toContain("at 2026-12-02 03:46 UTC (expected every 5 min)");
    expect(markdown).toContain("(failing since 2026-12-02 03:53 UTC)");
  });

  it("lists open items and risks until someone marks them done, counted as the card counts them", () => {
    const open = buildPostmortem({ story: story({ openItems: [DUPLICATE, AT_RISK] }), history: history() });
    const markdown = renderPostmortemMarkdown(open);
    expect(markdown).toContain("2 items remain open.");
    expect(markdown).toMatch(/- \*\*To do\*\* \(`commit-state-unknown`\): Remove the duplicate commit/);
    expect(markdown).toMatch(/- \*\*Risk\*\* \(`writer-last-snapshot-at-risk`\): Snapshot expiry can remove/);
    expect(markdown).toContain("```sql\nSELECT data_file.file_path");

    const done = { ...DUPLICATE, doneBy: "U0ALICE", doneAtMs: RECOVERED + 3 * MIN };
    const later = buildPostmortem({ story: story({ openItems: [done, AT_RISK] }), history: history() });
    const after = renderPostmortemMarkdown(later);
    expect(after).toContain("1 item remains open.");
    expect(after).toContain("Done by U0ALICE at 2026-12-02 04:59 UTC.");
    expect(later.timeline.at(-1)).toMatchObject({ kind: "item-done", by: "U0ALICE" });
    expect(renderPostmortemMarkdown(buildPostmortem({ story: story(), history: history() }))).toContain(
      "Nothing remains open.",
    );
  });
});

const HOSTILE = "Pwned-see-https://evil.example/reset";
const LINES = [
  "# Injected heading",
  "> injected quote https://evil.example/a",
  "- www.evil.example/b",
  "1. mail root@evil.example",
  "[click](https://evil.example/c) <https://evil.example/d>",
];

function hostileStory(): IncidentStory {
  return story({
    writer: { kind: "flink", id: "0bad", name: HOSTILE },
    verdict: { id: "commit-error", summary: `# ${HOSTILE}` },
    cause: { id: "competing-appends", summary: "> see http://evil.example/e" },
    evidence: LINES,
    steps: [{ ...story().steps[0]!, change: { kind: "manual", checklist: LINES } }],
    openItems: LINES.map((text, i) => ({ id: `i${i}`, kind: "todo" as const, text })),
    remarks: LINES.map((text, i) => ({ atMs: ALERT + i * 1000, user: "U0BOB", text })),
  });
}

function inMarkdown(markdown: string) {
  // GFM as a canvas renders it: bare URLs and www. addresses become links on their own.
  const tokens = new MarkdownIt({ linkify: true }).parse(markdown, {});
  const inline = tokens.flatMap((t) => [t, ...(t.children ?? [])]);
  return {
    links: inline.filter((t) => t.type === "link_open").length,
    headings: tokens
      .filter((t, i) => t.type === "inline" && tokens[i - 1]?.type === "heading_open")
      .map((t) => t.content),
    quotes: tokens.filter((t) => t.type === "blockquote_open").length,
  };
}

describe("the postmortem keeps what the world names inert", () => {
  it("no job name, evidence, checklist, open item or remark becomes a link, a heading or a quote", () => {
    const markdown = renderPostmortemMarkdown(
      buildPostmortem({ story: hostileStory(), history: history({ table: "db.events" }) }),
    );
    const seen = inMarkdown(markdown);
    expect(seen.links).toBe(0);
    expect(seen.quotes).toBe(0);
    expect(seen.headings).toEqual([
      "Postmortem: db.events (inc-1)",
      "Summary",
      "Impact",
      "Timeline",
      "Durations",
      "Cause",
      "Fix",
      "What remains open",
    ]);
    // Still readable: the name as typed, the address defused.
    expect(markdown).toContain("Pwned-see-https\\[:\\]//evil\\[.\\]example/reset");
  });

  it("the Slack note carries no bare URL from outside", () => {
    const pm = buildPostmortem({ story: hostileStory(), history: history() });
    const note = JSON.stringify(renderPostmortemNote(pm, undefined));
    expect(note).not.toMatch(/https?:\/\/evil|www\.evil|@evil\.example/);
    expect(note).toContain("https[:]//evil[.]example");
    // Every Slack message names a job through the same escape.
    expect(escapeMrkdwn(`job ${HOSTILE} failed; see www.evil.example`)).toBe(
      "job Pwned-see-https[:]//evil[.]example/reset failed; see www[.]evil[.]example",
    );
  });
});
