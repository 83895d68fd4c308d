// The sweep's control jobs: start and finish a sweep, and the two buttons of its digest ("Start the
// fix" and "Audit"). An audit asked for from a digest reads now, with the bot's own ports (not the
// sweep's copy), and is posted in the digest's thread; a failure that may pass (a source away) is
// thrown so the queue retries it, any other is told to the person who asked.

import type { EphemeralReply } from "../../core/jobs.js";
import type { AuditReport } from "../../core/report/schema.js";
import { tableSettings } from "../../core/settings.js";
import { asCodedError } from "../../errors.js";
import { auditTable } from "../audit-table.js";
import type { IncidentDeps } from "../incident/deps.js";
import type { EvidencePorts } from "../ports.js";
import type { SweepControlJob } from "./ports.js";
import type { SweepService } from "./service.js";

interface SweepControlDeps {
  service: Pick<SweepService, "start" | "finish">;
  /** "Start the fix" opens the table's incident as an alert would; answers go out through its Slack. */
  incidents: IncidentDeps;
  /** The bot's own evidence ports, for audits asked for from a digest. */
  auditPorts: EvidencePorts;
  sourceTimeoutMs: number;
  /** Posts an audit in the digest's thread, once under `name`. */
  postAudit(channel: string, name: string, report: AuditReport, threadTs: string): Promise<void>;
}

/** The control queue's processor; the job's id and time are the queue's (a retried start reuses its sweep). */
export function sweepControl(
  deps: SweepControlDeps,
): (data: SweepControlJob, job: { id?: string; timestamp: number }) => Promise<void> {
  const { incidents } = deps;
  // An ephemeral answer to one person; with an incident, after that incident's messages, so a
  // link to its thread is there to give.
  const reply = async (channel: string, user: string, reply: EphemeralReply, incidentId?: string) => {
    await incidents.slack.send({
      kind: "ephemeral",
      channel,
      user,
      reply,
      ...(incidentId ? { incidentId } : {}),
    });
  };
  return async (data, { id, timestamp }) => {
    switch (data.kind) {
      case "start":
        await deps.service.start(data, String(id), timestamp);
        return;
      case "finish":
        await deps.service.finish(data.sweepId);
        return;
      case "fix": {
        const outcome = await startFix(incidents, data.table, data.user, data.channel);
        await reply(
          data.channel,
          data.user,
          { kind: "fix-started", table: data.table, outcome: outcome.kind, incidentId: outcome.incidentId },
          outcome.incidentId,
        );
        return;
      }
      case "audit":
        try {
          const settings = tableSettings(incidents.bot, data.table);
          const { report } = await auditTable(
            deps.auditPorts,
            {
              table: data.table,
              flinkJob: settings.flinkJob,
              connector: settings.connector,
              timeoutMs: deps.sourceTimeoutMs,
            },
            incidents.now,
          );
          await deps.postAudit(data.channel, `audit-${String(id)}`, report, data.threadTs);
        } catch (error) {
          const coded = asCodedError(error);
          if (coded.retryable) throw coded;
          await reply(data.channel, data.user, {
            kind: "text",
            text: `Could not audit ${data.table}: ${coded.message}`,
          });
        }
    }
  };
}

/**
 * "Start the fix" on a digest line: the table gets an incident exactly as an alert would open
 * one (status card, a fresh diagnosis, then the playbook's proposal with the table's approval
 * rules), so a fix started from the sweep walks the same path as one started by an alert.
 */
async function startFix(
  deps: IncidentDeps,
  table: string,
  user: string,
  digestChannel: string,
): Promise<{ kind: "opened" | "already-open"; incidentId: string }> {
  const open = await deps.store.openIncidentFor(table);
  if (open) return { kind: "already-open", incidentId: open.id };
  const channel = tableSettings(deps.bot, table).channel ?? deps.incidentChannel ?? digestChannel;
  const now = deps.now();
  const { incident, created } = await deps.store.openOrJoin(table, channel, now);
  if (!created) return { kind: "already-open", incidentId: incident.id };
  await deps.store.appendTimeline(incident.id, {
    at: now,
    kind: "note",
    text: `fix started from the sweep digest by ${user}`,
  });
  await deps.slack.send({ kind: "root", incidentId: incident.id });
  const n = await deps.store.nextDiagnosis(incident.id);
  await deps.queues.enqueueDiagnose({ kind: "incident", incidentId: incident.id, n });
  deps.log.info({ incident: incident.id, table, user }, "incident opened from the sweep");
  return { kind: "opened", incidentId: incident.id };
}
