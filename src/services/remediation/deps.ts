// What guided remediation needs from the rest of the bot, as one injectable set of ports: tests
// wire real Redis, the simulated lakehouse and the Slack stand-in through it. Also what a walk is
// decided against, read from it: the table's playbook and steps, who may approve (user groups
// through the approver directory) and the follow-up pacing.

import { type ApprovalPolicy, policyFor } from "../../core/approval/policy.js";
import type { RemediationRecord } from "../../core/remediation/record.js";
import type { Playbook, PlaybookSet, Step } from "../../core/remediation/schema.js";
import type { MachineContext } from "../../core/remediation/walk.js";
import { type BotConfig, type ResolvedTableSettings, tableSettings } from "../../core/settings.js";
import { CodedError, ErrorCode } from "../../errors.js";
import type { LogLike } from "../incident/deps.js";
import type {
  ApproverDirectory,
  AuditPort,
  Clock,
  EvidencePorts,
  HistoryPort,
  IncidentStorePort,
  RemediationJob,
  RemediationNotifier,
  RemediationScheduler,
  RemediationStorePort,
  SlackOutboxPort,
} from "../ports.js";

export interface RemediationDeps {
  walks: RemediationStorePort;
  audit: AuditPort;
  store: IncidentStorePort;
  /** Each table's closed incidents: written when one closes (services/history). */
  history?: HistoryPort;
  /** The Slack outbox, for status card edits. */
  slack: SlackOutboxPort;
  jobs: RemediationScheduler;
  notifier: RemediationNotifier;
  approvers: ApproverDirectory;
  playbooks: PlaybookSet;
  bot: BotConfig;
  ports: EvidencePorts;
  now: Clock;
  log: LogLike;
  sourceTimeoutMs: number;
  /** Overrides BOT_CONFIG's follow-up interval (the demo and tests use a short one). */
  followUpIntervalMs?: number;
  /** Runs after a change was applied and before the result is recorded (tests crash a worker here). */
  afterApply?: (job: Extract<RemediationJob, { kind: "apply" }>) => Promise<void>;
  /**
   * The autopilot (services/autopilot), told of each proposal made from a diagnosis and of each
   * person's click or approval and finished check or revert job; absent when it is not wired.
   */
  autopilot?: {
    proposed(incidentId: string): Promise<void>;
    settle(incidentId: string): Promise<void>;
    run(job: Extract<RemediationJob, { kind: "autopilot" }>): Promise<void>;
  };
  /** Runs around the history write of a resolution (kill -9 drills crash a worker here). */
  onResolution?: (stage: "before-history" | "after-history") => Promise<void>;
}

/** Who may approve changes to a table, with user group members looked up in Slack. */
export async function policyOf(deps: RemediationDeps, table: string): Promise<ApprovalPolicy> {
  const approvers = tableSettings(deps.bot, table).approvers;
  const members: Record<string, string[]> = {};
  for (const id of approvers.filter((a) => a.startsWith("S")))
    members[id] = await deps.approvers.groupMembers(id);
  return policyFor(deps.bot, table, members);
}

export async function contextOf(deps: RemediationDeps, record: RemediationRecord): Promise<MachineContext> {
  return {
    playbook: playbookFor(deps, record.walk.playbookId, record.walk.current?.stepId),
    policy: await policyOf(deps, record.table),
    followUp: followUpOf(deps, record.table),
  };
}

export function followUpOf(deps: RemediationDeps, table: string): ResolvedTableSettings["followUp"] {
  const { followUp } = tableSettings(deps.bot, table);
  if (deps.followUpIntervalMs === undefined) return followUp;
  return { ...followUp, intervalSeconds: deps.followUpIntervalMs / 1000 };
}

export function playbookFor(deps: RemediationDeps, playbookId: string, stepId?: string): Playbook {
  const set = deps.playbooks.playbooks;
  const found = set.find((p) => p.id === playbookId) ?? set.find((p) => p.steps.some((s) => s.id === stepId));
  if (!found) {
    throw new CodedError(ErrorCode.PlaybookInvalid, `No playbook ${playbookId} is loaded`, {
      hint: "Check the playbooks directory the bot was started with (iceberg-bot playbooks lint).",
    });
  }
  return found;
}

export function stepOf(
  deps: RemediationDeps,
  record: Pick<RemediationRecord, "walk">,
  stepId: string,
): Step | undefined {
  return playbookFor(deps, record.walk.playbookId, stepId).steps.find((s) => s.id === stepId);
}
