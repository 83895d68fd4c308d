// The one Slack job left on BullMQ: filling the "Show all evidence" modal the receiver opened (a
// view, the named exception to "everything goes through the outbox"). Also the link to an
// incident's thread (what the outbox sends: views.ts).

import type { Incident } from "../../core/incident/model.js";
import type { SlackJob } from "../../core/jobs.js";
import { ReportSchema } from "../../core/report/schema.js";
import type { CodedError } from "../../errors.js";
import type { LogLike } from "../../services/incident/deps.js";
import type { IncidentStore } from "../store/incident-store.js";
import { fillPlaceholder, renderModalNote } from "./placeholder.js";
import { renderEvidenceModal } from "./render/diagnosis.js";
import type { SlackClient } from "./web-client.js";

export interface SlackJobDeps {
  client: SlackClient;
  store: Pick<IncidentStore, "getReport">;
  onSlackError?: (method: string) => void;
  log?: Pick<LogLike, "warn">;
}

export async function runSlackJob(deps: SlackJobDeps, job: SlackJob): Promise<void> {
  if (job.kind === "evidence") {
    await fillEvidence(deps, job);
    return;
  }
  // Messages are outbox entries; a message job on this queue was queued by an earlier version.
  deps.log?.warn({ job: job.kind }, "a Slack message job from an earlier version, dropped");
}

/** The placeholder "Show all evidence" opened, filled with the whole report (or why there is none). */
async function fillEvidence(deps: SlackJobDeps, job: Extract<SlackJob, { kind: "evidence" }>) {
  const report = ReportSchema.safeParse(await deps.store.getReport(job.incidentId, job.n));
  const view = report.success
    ? renderEvidenceModal(report.data)
    : renderModalNote(
        "All evidence",
        "This report is no longer kept; run /iceberg diagnose for a fresh one.",
      );
  if (!(await fillPlaceholder(deps.client, job.viewId, view))) {
    deps.onSlackError?.("views.update");
    deps.log?.warn({ incidentId: job.incidentId, n: job.n }, "the evidence modal could not be filled in");
  }
}

/** Link to the incident's thread; best effort, a list without links beats no list. */
export async function threadPermalink(
  client: Pick<SlackClient, "chat">,
  incident: Incident,
): Promise<string | undefined> {
  if (!incident.rootTs) return undefined;
  try {
    const result = await client.chat.getPermalink({ channel: incident.channel, message_ts: incident.rootTs });
    return result.permalink;
  } catch {
    return undefined;
  }
}

/** A stored incident a newer release wrote (incident-store.ts says so in the error's details). */
export function isNewer(error: CodedError): boolean {
  return (error.details as { newer?: unknown } | undefined)?.newer === true;
}
