// What the walk of a table is decided against: its playbook and steps, who may approve (user
// groups through the approver directory) and the follow-up pacing. Read-only: every part of the
// remediation use case asks it, and it calls none of them.

import { type ApprovalPolicy, policyFor } from "../../core/approval/policy.js";
import type { WalkRecord } from "../../core/playbook/record.js";
import type { Playbook, Step } from "../../core/playbook/schema.js";
import type { FollowUpSettings, MachineContext } from "../../core/playbook/walk.js";
import { tableSettings } from "../../core/settings.js";
import { CodedError, ErrorCode } from "../../errors.js";
import type { RemediationDeps } from "./deps.js";

export class RemediationSettings {
  constructor(
    private readonly deps: Pick<
      RemediationDeps,
      "bot" | "approvers" | "playbooks" | "followUpIntervalMs" | "followUpChecks"
    >,
  ) {}

  /** Who may approve changes to a table, with user group members looked up in Slack. */
  async policy(table: string): Promise<ApprovalPolicy> {
    const approvers = tableSettings(this.deps.bot, table).approvers;
    const members: Record<string, string[]> = {};
    for (const id of approvers.filter((a) => a.startsWith("S")))
      members[id] = await this.deps.approvers.groupMembers(id);
    return policyFor(this.deps.bot, table, members);
  }

  async context(record: WalkRecord): Promise<MachineContext> {
    return {
      playbook: this.playbookFor(record.walk.playbookId, record.walk.current?.stepId),
      policy: await this.policy(record.table),
      followUp: this.followUp(record.table),
    };
  }

  followUp(table: string): FollowUpSettings {
    const settings = tableSettings(this.deps.bot, table).followUp;
    const intervalSeconds =
      this.deps.followUpIntervalMs === undefined
        ? settings.intervalSeconds
        : this.deps.followUpIntervalMs / 1000;
    return { intervalSeconds, checks: this.deps.followUpChecks ?? settings.checks };
  }

  playbookFor(playbookId: string, stepId?: string): Playbook {
    const set = this.deps.playbooks.playbooks;
    const found =
      set.find((p) => p.id === playbookId) ?? set.find((p) => p.steps.some((s) => s.id === stepId));
    if (!found) {
      throw new CodedError(ErrorCode.PlaybookInvalid, `No playbook ${playbookId} is loaded`, {
        hint: "Check the playbooks directory the bot was started with (iceberg-bot playbooks lint).",
      });
    }
    return found;
  }

  step(playbookId: string, stepId: string): Step | undefined {
    return this.playbookFor(playbookId, stepId).steps.find((s) => s.id === stepId);
  }
}
