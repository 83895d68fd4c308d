// One incident, one duration: the thread said "4 min" where the postmortem said "4 min 30 s" for
// the same recovery, because each had its own formatter. Both now read the core's.

import { describe, expect, it } from "vitest";
import {
  postmortemSummary,
  renderPostmortemMarkdown,
} from "../../../src/adapters/render/postmortem-markdown.js";
import type { KnownBlock } from "../../../src/adapters/slack/render/block-kit.js";
import { renderVerification } from "../../../src/adapters/slack/render/verification.js";
import type { Postmortem } from "../../../src/core/history/postmortem.js";

const T0 = Date.parse("2026-11-29T09:00:00Z");
const RECOVERED_AFTER_MS = 4 * 60_000 + 30_000;

const pm: Postmortem = {
  incidentId: "inc-7",
  table: "db.events",
  state: "resolved",
  openedAtMs: T0,
  closedAtMs: T0 + 20 * 60_000,
  timeline: [],
  impact: { recovered: true },
  durations: { toDiagnoseMs: 60_000, toRecoverMs: 12 * 60_000 },
  cause: { verdict: "commit-conflict", triage: { id: "commit-conflict", summary: "conflict" }, evidence: [] },
  fix: { stepId: "raise-commit-retries", recoveredAfterMs: RECOVERED_AFTER_MS },
  notHelped: [],
  open: [],
  pictures: [],
};

function texts(blocks: KnownBlock[]): string {
  return blocks.map((b) => (b.type === "section" ? (b.text?.text ?? "") : "")).join("\n");
}

describe("one duration on every surface", () => {
  it("gives a recovery the same length in the thread and in the postmortem", () => {
    const thread = texts(
      renderVerification({
        incidentId: "inc-7",
        proposalId: "prop-3",
        stepId: "raise-commit-retries",
        table: "db.events",
        writer: { kind: "flink-job", id: "4f2a9c0e11223344556677889900aabb" },
        check: { index: 3, total: 6 },
        latest: { newSnapshotId: "7204611893422137813" },
        outcome: {
          kind: "recovered",
          snapshotId: "7204611893422137813",
          committedAtMs: T0 + 10 * 60_000,
          recoveredAfterMs: RECOVERED_AFTER_MS,
        },
      }).blocks,
    );
    expect(thread).toContain("4 min 30 s after the change.");
    expect(postmortemSummary(pm)).toContain("commits resumed 4 min 30 s after the change");
    expect(renderPostmortemMarkdown(pm)).toContain("4 min 30 s after the change");
  });
});
