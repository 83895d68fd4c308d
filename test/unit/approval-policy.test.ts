import { describe, expect, it } from "vitest";
import { renderNotice } from "../../src/adapters/slack/render/walk-notice.js";
import { loadConfig } from "../../src/config.js";
import { type ApprovalPolicy, approverIds, canApprove, policyFor } from "../../src/core/approval/policy.js";

/** The refusal a person sees: the core's structured reason, worded by the Slack renderer. */
function refusalText(policy: ApprovalPolicy, reason: "no-approvers" | "not-listed"): string {
  return renderNotice({ kind: "not-approver", table: policy.table, reason, ...approverIds(policy) });
}

const { bot } = loadConfig({
  BOT_CONFIG: [
    "defaults:",
    "  approvers: [S0ONCALL, U0LEAD]",
    "tables:",
    "  db.payments:",
    "    approvers: [U0PAYOWNER]",
    "  db.events:",
    "    channel: '#data-incidents'",
  ].join("\n"),
});
const groups = { S0ONCALL: ["U0CAROL", "U0DAVE"] };

describe("approval policy", () => {
  const cases: { table: string; user: string; allowed: boolean; why?: RegExp }[] = [
    { table: "db.events", user: "U0LEAD", allowed: true },
    { table: "db.events", user: "U0CAROL", allowed: true },
    { table: "db.events", user: "U0MALLORY", allowed: false, why: /ask <!subteam\^S0ONCALL> or <@U0LEAD>/ },
    { table: "db.payments", user: "U0PAYOWNER", allowed: true },
    // The table's own list replaces the defaults: on-call cannot approve payments changes.
    { table: "db.payments", user: "U0CAROL", allowed: false, why: /ask <@U0PAYOWNER>/ },
  ];
  for (const c of cases) {
    it(`${c.user} on ${c.table}: ${c.allowed ? "allowed" : "refused"}`, () => {
      const policy = policyFor(bot, c.table, groups);
      const decision = canApprove(policy, c.user);
      expect(decision.allowed).toBe(c.allowed);
      if (!decision.allowed) {
        expect(decision.reason).toBe("not-listed");
        expect(refusalText(policy, decision.reason)).toMatch(c.why as RegExp);
      }
    });
  }

  it("says which group let the user in", () => {
    expect(canApprove(policyFor(bot, "db.events", groups), "U0DAVE")).toEqual({
      allowed: true,
      via: "S0ONCALL",
    });
  });

  it("a group id is not a user: nobody named S… gets in without membership data", () => {
    expect(canApprove(policyFor(bot, "db.events", {}), "U0CAROL").allowed).toBe(false);
  });

  it("fails closed when no approvers are configured, and says where to add them", () => {
    const policy = policyFor(loadConfig({ BOT_CONFIG: "tables: {}" }).bot, "db.events");
    const decision = canApprove(policy, "U0LEAD");
    expect(decision).toEqual({ allowed: false, reason: "no-approvers" });
    expect(refusalText(policy, "no-approvers")).toContain("tables.db.events.approvers or defaults.approvers");
  });

  it("names groups with Slack mentions when no handle is known", () => {
    const policy = policyFor(bot, "db.events");
    expect(approverIds(policy)).toEqual({ approverUserIds: ["U0LEAD"], approverGroupIds: ["S0ONCALL"] });
    expect(refusalText(policy, "not-listed")).toContain("ask <!subteam^S0ONCALL> or <@U0LEAD>.");
  });
});
