// What guided remediation needs from the rest of the bot, as one injectable set: tests wire real
// Redis, the simulated lakehouse and the Slack stand-in through it.

import type { RemediationEnqueuer, RemediationJob } from "../adapters/queue/remediation-queue.js";
import type { SlackClient } from "../adapters/slack/web-client.js";
import type { AuditTrail } from "../adapters/store/audit-trail.js";
import type { Claims } from "../adapters/store/claims.js";
import type { IncidentStore } from "../adapters/store/incident-store.js";
import type { WalkStore } from "../adapters/store/walk-store.js";
import type { BotConfig } from "../config.js";
import type { PlaybookSet } from "../core/playbook/schema.js";
import type { Enqueuer, LogLike } from "./incident-deps.js";
import type { EvidencePorts, TimelinePoster } from "./ports.js";

export interface RemediationDeps {
  walks: WalkStore;
  audit: AuditTrail;
  store: IncidentStore;
  claims: Claims;
  /** The bot's Slack queue, for status card edits. */
  slackQueue: Pick<Enqueuer, "enqueueSlack">;
  jobs: RemediationEnqueuer;
  slack: SlackClient;
  playbooks: PlaybookSet;
  bot: BotConfig;
  ports: EvidencePorts;
  now: () => number;
  log: LogLike;
  sourceTimeoutMs: number;
  /** Shares the updated commit timeline once the writer recovered; absent, no picture. */
  timeline?: TimelinePoster;
  /** Overrides BOT_CONFIG's follow-up interval (the demo and tests use a short one). */
  followUpIntervalMs?: number;
  /** Overrides BOT_CONFIG's number of follow-up checks. */
  followUpChecks?: number;
  /** How long a proposal waits for the diagnosis message it answers (default 15 s). */
  diagnosisWaitMs?: number;
  /** Runs after a change was applied and before the result is recorded (tests crash a worker here). */
  afterApply?: (job: Extract<RemediationJob, { kind: "apply" }>) => Promise<void>;
}
