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
}

export type PolicyDecision = { allowed: true; via: string } | { allowed: false; reason: string };

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
  if (policy.approvers.length === 0) {
    return {
      allowed: false,
      reason: `Nobody is allowed to approve changes to ${policy.table} yet: add approvers to BOT_CONFIG (tables.${policy.table}.approvers or defaults.approvers).`,
    };
  }
  for (const id of policy.approvers) {
    if (id === user) return { allowed: true, via: id };
    if (isGroupId(id) && (policy.groupMembers[id] ?? []).includes(user)) return { allowed: true, via: id };
  }
  return {
    allowed: false,
    reason: `You are not an approver for ${policy.table}; ask ${whoCanApprove(policy)}.`,
  };
}

/** "@iceberg-oncall or <@U123>": the approvers as people can reach them, groups first. */
export function whoCanApprove(policy: ApprovalPolicy): string {
  const sorted = [...policy.approvers].sort((a, b) => Number(isGroupId(b)) - Number(isGroupId(a)));
  const names = sorted.map((id) => mention(id));
  if (names.length <= 1) return names[0] ?? "an administrator to configure approvers";
  return `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

export function mention(id: string): string {
  return isGroupId(id) ? `<!subteam^${id}>` : `<@${id}>`;
}

function isGroupId(id: string): boolean {
  return id.startsWith("S");
}
