import type { types } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import {
  ACTION_IDS,
  APPLY_MODAL,
  decodeActionValue,
  encodeActionValue,
} from "../../../src/adapters/slack/render/action-value.js";
import type { Button, KnownBlock } from "../../../src/adapters/slack/render/block-kit.js";
import {
  renderApplyModal,
  renderProposal,
  renderRevertButton,
} from "../../../src/adapters/slack/render/proposal.js";
import { renderVerification } from "../../../src/adapters/slack/render/verification.js";
import { ErrorCode, isCodedError } from "../../../src/errors.js";
import type { ProposalView, VerificationView } from "../../../src/services/view-models.js";
import { checkBlocks, checkView } from "../../../src/sim/slack/block-rules.js";

const proposal: ProposalView = {
  incidentId: "inc-7",
  proposalId: "prop-3",
  table: "db.events",
  step: {
    id: "raise-commit-retries",
    playbook: "commit-conflict",
    summary: "Give the committer more attempts while compaction runs",
    change: {
      kind: "table-properties",
      table: "db.events",
      changes: [
        { key: "commit.retry.num-retries", current: "4", proposed: "10" },
        { key: "commit.retry.min-wait-ms", current: null, proposed: "500" },
      ],
    },
    automatic: true,
  },
  index: 1,
  why: "Appends survive more retries; the conflicts come from compaction",
  risk: { level: "low", detail: "only the retry budget changes and it can be reverted" },
  verification: { checks: 6, intervalSeconds: 300 },
  approvers: ["S0ONCALL", "U0LEAD"],
};

function buttons(blocks: KnownBlock[]): Button[] {
  return blocks.flatMap((b) => (b.type === "actions" ? (b.elements as Button[]) : []));
}

function sectionTexts(blocks: KnownBlock[]): string {
  return blocks
    .map((b) => {
      if (b.type === "section") return b.text?.text ?? "";
      if (b.type === "context") return b.elements.map((e) => ("text" in e ? e.text : "")).join(" ");
      return "";
    })
    .join("\n");
}

describe("renderProposal", () => {
  it("offers Apply, Done by hand, Skip and Stop carrying the compact value", () => {
    const { text, blocks } = renderProposal(proposal);
    const found = buttons(blocks);
    expect(found.map((b) => b.action_id)).toEqual([
      "playbook_apply",
      "playbook_done",
      "playbook_skip",
      "playbook_stop",
    ]);
    expect(found.map((b) => b.text.text)).toEqual(["Apply", "Done by hand", "Skip", "Stop"]);
    for (const b of found) {
      expect(b.value).toBe('{"incidentId":"inc-7","stepId":"raise-commit-retries","proposalId":"prop-3"}');
      expect(decodeActionValue(b.value)).toEqual({
        incidentId: "inc-7",
        stepId: "raise-commit-retries",
        proposalId: "prop-3",
      });
    }
    expect(found[0]?.style).toBe("primary");
    expect(found[3]?.style).toBe("danger");
    expect(found[3]?.confirm?.confirm?.text).toBe("Stop");
    expect(text).toBe("Step for db.events: raise commit retries (waiting for approval)");
    expect(checkBlocks(blocks, "message")).toEqual([]);
  });

  it("says what changes, why, the risk and how it will be verified", () => {
    const all = sectionTexts(renderProposal(proposal).blocks);
    expect(all).toContain("*Step 1: raise commit retries* for `db.events`");
    expect(all).toContain(
      "```commit.retry.num-retries: 4 → 10\ncommit.retry.min-wait-ms: unset (default 100) → 500```",
    );
    // The diff once: the by-hand statement waits in the Apply form.
    expect(all).not.toContain("ALTER TABLE");
    expect(all).toContain("*Why this step:* Appends survive more retries");
    expect(all).toContain("*Risk:* :large_green_circle: low, only the retry budget changes");
    expect(all).toContain("up to 6 checks over 30 min.");
    expect(all).toContain("Approvers: <!subteam^S0ONCALL>, <@U0LEAD>");
  });

  it("quotes the by-hand statement in the Apply form, unsets removed keys and offers none for an unsafe table", () => {
    const change = (table: string): ProposalView => ({
      ...proposal,
      step: {
        ...proposal.step,
        change: {
          kind: "table-properties",
          table,
          changes: [
            { key: "commit.retry.num-retries", current: "4", proposed: "10" },
            { key: "write.spark.fanout.enabled", current: "true", proposed: null },
          ],
        },
      },
    });
    const form = (table: string) => {
      const view = change(table);
      return JSON.parse(
        JSON.stringify(
          renderApplyModal({
            incidentId: view.incidentId,
            stepId: view.step.id,
            proposalId: view.proposalId,
            table,
            change: view.step.change,
            title: "raise commit retries",
            risky: false,
          }).blocks,
        ),
      ) as KnownBlock[];
    };
    expect(sectionTexts(renderProposal(change("raw-zone.order")).blocks)).not.toContain("ALTER TABLE");
    const quoted = sectionTexts(form("raw-zone.order"));
    expect(quoted).toContain("then press *Done by hand* on the proposal.");
    expect(quoted).toContain(
      "```ALTER TABLE `raw-zone`.`order` SET TBLPROPERTIES (\n  'commit.retry.num-retries' = '10'\n);\nALTER TABLE `raw-zone`.`order` UNSET TBLPROPERTIES (\n  'write.spark.fanout.enabled'\n);```",
    );
    const hostile = sectionTexts(form("db.events; DROP TABLE x"));
    expect(hostile).not.toContain("To do it by hand instead");
    expect(hostile).not.toContain("ALTER TABLE");
  });

  it("offers no Done by hand for a read-only check: the bot checks at once and would refuse it", () => {
    const check: ProposalView = {
      ...proposal,
      step: {
        id: "verify-unknown-commit",
        playbook: "commit-failures",
        summary: "Find out whether the last commit landed",
        change: {
          kind: "read-only-check",
          statement: "SELECT snapshot_id FROM db.events.snapshots",
          language: "sql",
          checklist: ["Look for a snapshot from the writer newer than the failure."],
        },
        automatic: true,
      },
    };
    const { text, blocks } = renderProposal(check);
    expect(buttons(blocks).map((b) => b.action_id)).toEqual(["playbook_skip", "playbook_stop"]);
    const all = sectionTexts(blocks);
    expect(all).not.toMatch(/by hand/i);
    expect(all).not.toContain("Approvers:");
    expect(all).toContain("*The bot checks this itself, nothing changes:*");
    expect(all).toContain("The bot is checking now");
    // It answers at its first look: no count of follow-up checks is promised.
    expect(all).not.toMatch(/How we'll know|checks over|checked \d+ times/);
    expect(text).toBe("Step for db.events: check whether the commit landed (the bot is checking)");
    expect(checkBlocks(blocks, "message")).toEqual([]);
    // Once the bot ran it, the line says it checked, not that it applied a change.
    const done = renderProposal({
      ...check,
      decision: { kind: "applied", by: "bot", atMs: Date.UTC(2026, 10, 29, 10, 7) },
    });
    expect(sectionTexts(done.blocks)).toContain(
      ":mag: Checked by bot at <!date^1795946820^{time}|10:07 UTC>",
    );
  });

  it("shows a manual step's statement ready to copy and no Apply button", () => {
    const manual: ProposalView = {
      ...proposal,
      step: {
        id: "move-compaction-off-hot-partitions",
        playbook: "commit-conflict",
        summary: "Compact only partitions the writer has left",
        change: {
          kind: "manual",
          statement: "CALL cat.system.rewrite_data_files(table => 'db.events')",
          checklist: [],
        },
        automatic: false,
      },
    };
    const { blocks } = renderProposal(manual);
    expect(buttons(blocks).map((b) => b.action_id)).toEqual([
      "playbook_done",
      "playbook_skip",
      "playbook_stop",
    ]);
    expect(sectionTexts(blocks)).toContain(
      "*Run this yourself, then press Done by hand:*\n```CALL cat.system.rewrite_data_files(table =&gt; 'db.events')```",
    );
  });

  it("shows the times a guidance step quotes as date tokens, not ISO stamps", () => {
    const guidance: ProposalView = {
      ...proposal,
      step: {
        id: "renew-catalog-credential",
        playbook: "commit-error",
        summary: "Renew the writer's catalog credential",
        change: {
          kind: "manual",
          checklist: [
            "The exception: NotAuthorizedException: Token expired — seen 3 times, first 2026-11-29T09:20:00.000Z, last 2026-11-29T10:07:00.000Z.",
          ],
        },
        automatic: false,
      },
    };
    const shown = sectionTexts(renderProposal(guidance).blocks);
    expect(shown).toContain("first <!date^1795944000^{date_short_pretty} {time}|2026-11-29 09:20 UTC>");
    expect(shown).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  });

  it("replaces the buttons with who decided once a decision is made", () => {
    const { text, blocks } = renderProposal({
      ...proposal,
      decision: {
        kind: "applied",
        by: "U0LEAD",
        atMs: Date.parse("2026-11-29T09:20:00Z"),
        reason: "<!channel> ok",
      },
    });
    expect(buttons(blocks)).toEqual([]);
    expect(sectionTexts(blocks)).toContain(
      ":white_check_mark: Applied by <@U0LEAD> at <!date^1795944000^{time}|09:20 UTC>: &lt;!channel&gt; ok",
    );
    expect(text).not.toContain("waiting");
  });

  it("refuses ids that would overflow Slack's 2,000-character button value", () => {
    const call = () =>
      encodeActionValue({ incidentId: "i".repeat(2000), stepId: "skip-me" as never, proposalId: "p" });
    expect(call).toThrow(/2000/);
    expect(() => decodeActionValue('{"incidentId":"a"}')).toThrow(/playbook step/);
    let caught: unknown;
    try {
      decodeActionValue("not json");
    } catch (error) {
      caught = error;
    }
    expect(isCodedError(caught, ErrorCode.UsageInvalid)).toBe(true);
  });
});

const NOW = Date.parse("2026-11-29T09:30:00Z");

describe("renderApplyModal and renderRevertButton", () => {
  const base = {
    incidentId: "inc-7",
    proposalId: "prop-3",
    stepId: "review-isolation-level" as const,
    table: "db.events",
    title: "review the isolation level",
    change: proposal.step.change,
  };

  it("shows the second approver the risk, 'approval 2 of 2' and the first approver's reason", () => {
    const modal = renderApplyModal({
      ...base,
      risky: true,
      risk: { level: "high", detail: "weaker isolation can let conflicting changes both commit" },
      approval: {
        index: 2,
        of: 2,
        earlier: [{ by: "U0ONCALL", reason: "the merge job only touches old days" }],
      },
    });
    const text = JSON.stringify(modal.blocks);
    expect(text).toContain(
      "*Risk:* :red_circle: high, weaker isolation can let conflicting changes both commit",
    );
    expect(text).toContain("*This is approval 2 of 2.*");
    expect(text).toContain("<@U0ONCALL> approved first: the merge job only touches old days");
    expect(checkView(modal, "modal")).toEqual([]);
  });

  it("keeps every approver and their reasons on the applied proposal", () => {
    const { blocks } = renderProposal({
      ...proposal,
      decision: {
        kind: "applied",
        by: "U0LEAD",
        atMs: NOW,
        reason: "checked the readers",
        approvers: [
          { by: "U0ONCALL", atMs: NOW - 60_000, reason: "the merge job only touches old days" },
          { by: "U0LEAD", atMs: NOW, reason: "checked the readers" },
        ],
      },
    });
    const text = JSON.stringify(blocks);
    expect(text).toContain("approved by:");
    expect(text).toMatch(
      /1\. <@U0ONCALL> at <!date\^\d+\^\{time\}\|[^>]+>: the merge job only touches old days/,
    );
    expect(text).toMatch(/2\. <@U0LEAD> at <!date\^\d+\^\{time\}\|[^>]+>: checked the readers/);
  });

  it("asks for a required reason and, for risky steps, a required correctness confirmation", () => {
    const modal = renderApplyModal({ ...base, risky: true });
    expect(modal.callback_id).toBe(APPLY_MODAL.callbackId);
    expect(decodeActionValue(modal.private_metadata)).toEqual({
      incidentId: "inc-7",
      stepId: "review-isolation-level",
      proposalId: "prop-3",
    });
    const inputs = modal.blocks.filter((b): b is types.InputBlock => b.type === "input");
    expect(inputs.map((b) => b.block_id)).toEqual(["apply_reason", "apply_confirm"]);
    expect(inputs.every((b) => b.optional !== true)).toBe(true);
    expect(inputs[0]?.element.type).toBe("plain_text_input");
    expect(inputs[1]?.element.type).toBe("checkboxes");
    expect(inputs[1]?.element.action_id).toBe("confirm");
    expect(checkView(modal, "modal")).toEqual([]);

    const safe = renderApplyModal({ ...base, stepId: "raise-commit-retries", risky: false });
    expect(safe.blocks.filter((b) => b.type === "input").map((b) => b.block_id)).toEqual(["apply_reason"]);
  });

  it("builds a Revert button with its own action id and a confirmation", () => {
    const button = renderRevertButton({
      incidentId: "inc-7",
      stepId: "raise-commit-retries",
      proposalId: "prop-3",
    });
    expect(button.action_id).toBe(ACTION_IDS.revert);
    expect(decodeActionValue(button.value).proposalId).toBe("prop-3");
    expect(button.confirm?.title?.text).toBe("Revert this change?");
  });
});

describe("renderVerification", () => {
  const view: VerificationView = {
    incidentId: "inc-7",
    proposalId: "prop-3",
    stepId: "raise-commit-retries",
    table: "db.events",
    writer: { kind: "flink-job", id: "4f2a9c0e11223344556677889900aabb" },
    check: { index: 2, total: 6 },
    intervalSeconds: 300,
    latest: { newSnapshotId: null, elapsedSecondsSinceLastSuccessfulCommit: 3420, trend: "rising" },
  };

  it("reports each check in one line", () => {
    const { text, blocks } = renderVerification(view);
    const all = sectionTexts(blocks);
    expect(all).toContain(
      "check 2 of 6: no new snapshot from job 4f2a… yet; elapsedSecondsSinceLastSuccessfulCommit 3,420 s and rising",
    );
    expect(all).toContain("next check in 5 min");
    expect(text).toBe("Verifying raise commit retries on db.events: check 2 of 6");
    expect(buttons(blocks)).toEqual([]);
  });

  it("names the first new snapshot and the time to recovery", () => {
    const { blocks } = renderVerification({
      ...view,
      check: { index: 3, total: 6 },
      outcome: {
        kind: "recovered",
        snapshotId: "7204611893422137813",
        committedAtMs: Date.parse("2026-11-29T09:41:00Z"),
        recoveredAfterMs: 18 * 60_000,
      },
    });
    const all = sectionTexts(blocks);
    expect(all).toContain(
      "First new snapshot `7204611893422137813` from job 4f2a… at <!date^1795945260^{time}|09:41 UTC>; 18 min after the change.",
    );
    expect(all).toContain("confirmed at check 3 of 6");
  });

  it("offers Revert and the next step when the change did not help", () => {
    const { blocks } = renderVerification({
      ...view,
      writer: { kind: "connector", id: "events-sink" },
      check: { index: 6, total: 6 },
      latest: { newSnapshotId: null, connectorState: "FAILED" },
      outcome: {
        kind: "ineffective",
        revertable: true,
        nextStep: {
          stepId: "move-compaction-off-hot-partitions",
          title: "move compaction off hot partitions",
        },
      },
    });
    const found = buttons(blocks);
    expect(found.map((b) => b.action_id)).toEqual([ACTION_IDS.revert, ACTION_IDS.next]);
    expect(decodeActionValue(found[1]?.value)).toEqual({
      incidentId: "inc-7",
      stepId: "move-compaction-off-hot-partitions",
      proposalId: "prop-3",
    });
    expect(found[1]?.text.text).toBe("Next step: move compaction off hot partitions");
    expect(sectionTexts(blocks)).toContain(
      "no new snapshot from connector `events-sink` yet; connector FAILED",
    );
    expect(checkBlocks(blocks, "message")).toEqual([]);
  });
});
