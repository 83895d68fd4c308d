// What guided remediation needs from the rest of the bot, as one injectable set of ports: tests
// wire real Redis, the simulated lakehouse and the Slack stand-in through it.

import type { PlaybookSet } from "../../core/playbook/schema.js";
import type { BotConfig } from "../../core/settings.js";
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
  SlackOutboxPort,
  WalkStorePort,
} from "../ports.js";

export interface RemediationDeps {
  walks: WalkStorePort;
  audit: AuditPort;
  store: Pick<
    IncidentStorePort,
    | "get"
    | "require"
    | "update"
    | "close"
    | "getChart"
    | "saveChart"
    | "getReport"
    | "timeline"
    | "openIncidentFor"
  >;
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
  /** Shares the updated commit timeline once the writer recovered (default: no picture). */
  recoveryChart?: boolean;
  /** Overrides BOT_CONFIG's follow-up interval (the demo and tests use a short one). */
  followUpIntervalMs?: number;
  /** Overrides BOT_CONFIG's number of follow-up checks. */
  followUpChecks?: number;
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
