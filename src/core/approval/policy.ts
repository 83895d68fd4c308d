// Who may approve a change on a table. Approvers come from BOT_CONFIG (per table, else the
// defaults) as Slack user ids (U…/W…) or user group ids (S…); group membership is looked up by
// the Slack adapter and handed in as data, so this stays pure.

import { type BotConfig, tableSettings } from "../settings.js";

export interface ApprovalPolicy {
  table: string;
  /** User ids and user group ids allowed to approve. Empty: nobody can (fail closed). */
  approvers: readonly string[];
  /** Members of each user group named in `approvers`. */
  groupMembers: Readonly<Record<string, readonly string[]>>;
  /**
   * The autopilot policy actor (`policy:<name>`) one decision is made under: BOT_CONFIG's
   * `autopilot:` grants it for that decision only, never through the approvers list.
   */
  autopilot?: string;
}

/** Why a user may not approve: nobody is configured (fail closed), or they are not among the approvers. */
export type PolicyDecision =
  | { allowed: true; via: string }
  | { allowed: false; reason: "no-approvers" | "not-listed" };

/** Builds the policy for one table from the bot config (the table's own list wins over defaults). */
export function policyFor(
  bot: BotConfig,
  table: string,
  groupMembers: Readonly<Record<string, readonly string[]>> = {},
): ApprovalPolicy {
  const { approvers } = tableSettings(bot, table);
  return { table, approvers, groupMembers };
}

export function canApprove(policy: ApprovalPolicy, user: string): PolicyDecision {
  if (policy.autopilot !== undefined && user === policy.autopilot) return { allowed: true, via: user };
  if (policy.approvers.length === 0) {
    return { allowed: false, reason: "no-approvers" };
  }
  for (const id of policy.approvers) {
    if (id === user) return { allowed: true, via: id };
    if (isGroupId(id) && (policy.groupMembers[id] ?? []).includes(user)) return { allowed: true, via: id };
  }
  return { allowed: false, reason: "not-listed" };
}

/** The configured approvers split into people and user groups, for whoever words a refusal. */
export function approverIds(policy: ApprovalPolicy): {
  approverUserIds: string[];
  approverGroupIds: string[];
} {
  return {
    approverUserIds: policy.approvers.filter((id) => !isGroupId(id)),
    approverGroupIds: policy.approvers.filter(isGroupId),
  };
}

function isGroupId(id: string): boolean {
  return id.startsWith("S");
}
