// The sweep's control jobs: start and finish a sweep, and the two buttons of its digest ("Start the
// fix" and "Audit"). An audit asked for from a digest reads now, with the bot's own ports (not the
// sweep's copy), and is posted in the digest's thread; a failure that may pass (a source away) is
// thrown so the queue retries it, any other is told to the person who asked.

import type { EphemeralReply } from "../../core/jobs.js";
import type { AuditReport } from "../../core/report/schema.js";
import { type BotConfig, tableSettings } from "../../core/settings.js";
import { asCodedError } from "../../errors.js";
import { auditTable } from "../audit-table.js";
import type { EvidencePorts } from "../ports.js";
import type { SweepControlJob } from "./ports.js";
import type { SweepService } from "./service.js";
import type { StartFixOutcome } from "./start-fix.js";

export interface SweepControlDeps {
  service: Pick<SweepService, "start" | "finish">;
  bot: BotConfig;
  /** The bot's own evidence ports, for audits asked for from a digest. */
  auditPorts: EvidencePorts;
  sourceTimeoutMs: number;
  now: () => number;
  /** "Start the fix": opens the table's incident as an alert would. */
  startFix(table: string, user: string, channel: string): Promise<StartFixOutcome>;
  /** Posts an audit in the digest's thread, once under `name`. */
  postAudit(channel: string, name: string, report: AuditReport, threadTs: string): Promise<void>;
  /** An ephemeral answer to one person; with an incident, after that incident's messages. */
  reply(channel: string, user: string, reply: EphemeralReply, incidentId?: string): Promise<void>;
}

/** Runs one control job; `jobId` and `addedAtMs` are the queue's (a retried start reuses its sweep). */
export function sweepControl(
  deps: SweepControlDeps,
): (job: { id?: string; timestamp: number; data: SweepControlJob }) => Promise<void> {
  return async ({ id, timestamp, data }) => {
    switch (data.kind) {
      case "start":
        await deps.service.start(data, String(id), timestamp);
        return;
      case "finish":
        await deps.service.finish(data.sweepId);
        return;
      case "fix": {
        const outcome = await deps.startFix(data.table, data.user, data.channel);
        await deps.reply(
          data.channel,
          data.user,
          { kind: "fix-started", table: data.table, outcome: outcome.kind, incidentId: outcome.incidentId },
          outcome.incidentId,
        );
        return;
      }
      case "audit":
        try {
          const settings = tableSettings(deps.bot, data.table);
          const { report } = await auditTable(
            deps.auditPorts,
            {
              table: data.table,
              flinkJob: settings.flinkJob,
              connector: settings.connector,
              timeoutMs: deps.sourceTimeoutMs,
            },
            deps.now,
          );
          await deps.postAudit(data.channel, `audit-${String(id)}`, report, data.threadTs);
        } catch (error) {
          const coded = asCodedError(error);
          if (coded.retryable) throw coded;
          await deps.reply(data.channel, data.user, {
            kind: "text",
            text: `Could not audit ${data.table}: ${coded.message}`,
          });
        }
    }
  };
}
