// "Start the fix" on a digest line: the table gets an incident exactly as an alert would open
// one (status card, a fresh diagnosis, then the playbook's proposal with the table's approval
// rules), so a fix started from the sweep walks the same path as one started by an alert.

import { tableSettings } from "../../core/settings.js";
import type { IncidentDeps } from "../incident/deps.js";

export type StartFixOutcome = { kind: "opened" | "already-open"; incidentId: string; channel: string };

export async function startFixFromSweep(
  deps: IncidentDeps,
  table: string,
  user: string,
  digestChannel: string,
): Promise<StartFixOutcome> {
  const open = await deps.store.openIncidentFor(table);
  if (open) return { kind: "already-open", incidentId: open.id, channel: open.channel };
  const channel = tableSettings(deps.bot, table).channel ?? deps.incidentChannel ?? digestChannel;
  const now = deps.now();
  const { incident, created } = await deps.store.openOrJoin(table, channel, now);
  if (!created) return { kind: "already-open", incidentId: incident.id, channel: incident.channel };
  await deps.store.appendTimeline(incident.id, {
    at: now,
    kind: "note",
    text: `fix started from the sweep digest by ${user}`,
  });
  await deps.slack.send({ kind: "root", incidentId: incident.id });
  const n = await deps.store.nextDiagnosis(incident.id);
  await deps.queues.enqueueDiagnose({ kind: "incident", incidentId: incident.id, n });
  deps.log.info({ incident: incident.id, table, user }, "incident opened from the sweep");
  return { kind: "opened", incidentId: incident.id, channel };
}
