// What the table's history says to a new diagnosis: the earlier incident with the same triage
// finding and root cause, one line in the thread about what fixed it (and what did not, and a fix
// the table no longer holds), and the lesson kept with the walk so proposals can be marked.
// `history.suggestions: false` in BOT_CONFIG turns all of it off; the history is still written.

import type { Evidence } from "../../core/evidence/model.js";
import { type EarlierMatch, lostChanges, matchEarlier } from "../../core/history/match.js";
import type { IncidentHistory } from "../../core/history/record.js";
import type { RemediationMemory } from "../../core/remediation/record.js";
import type { Report } from "../../core/report/schema.js";
import type { BotConfig } from "../../core/settings.js";
import { asCodedError } from "../../errors.js";
import type { LogLike } from "../incident/deps.js";
import type { HistoryPort, SlackOutboxPort } from "../ports.js";

export interface EarlierDeps {
  history?: HistoryPort;
  bot: BotConfig;
  log: LogLike;
  slack: SlackOutboxPort;
}

/** The table's closed incidents other than this one, or none when suggestions are off. */
export async function earlierIncidents(
  deps: Pick<EarlierDeps, "history" | "bot" | "log">,
  table: string,
  incidentId: string,
): Promise<IncidentHistory[]> {
  if (!deps.history || deps.bot.history?.suggestions === false) return [];
  try {
    return (await deps.history.list(table)).filter((h) => h.incidentId !== incidentId);
  } catch (error) {
    // The history only helps: a diagnosis never waits on it.
    deps.log.warn({ table, err: asCodedError(error).message }, "incident history not read");
    return [];
  }
}

/** Says in the thread that the diagnosis repeats an earlier incident; returns the match. */
export async function sayEarlier(
  deps: EarlierDeps,
  incidentId: string,
  n: number,
  report: Report,
  earlier: readonly IncidentHistory[],
  evidence: Evidence | undefined,
): Promise<EarlierMatch | undefined> {
  let match: EarlierMatch | undefined;
  let lost: ReturnType<typeof lostChanges> = [];
  try {
    match = matchEarlier(earlier, report, incidentId);
    if (match && evidence?.catalog) lost = lostChanges(earlier, evidence.catalog.properties, match);
  } catch (error) {
    // The history only helps: a record the store let through that still breaks the match costs
    // the suggestion, never the diagnosis.
    deps.log.warn({ incidentId, err: asCodedError(error).message }, "incident history not matched");
    return undefined;
  }
  if (!match) return undefined;
  await deps.slack.send({
    kind: "earlier",
    incidentId,
    n,
    earlier: {
      incidentId: match.incidentId,
      openedAtMs: match.openedAtMs,
      ...(match.fixedBy ? { fixedBy: match.fixedBy } : {}),
      ...(match.fixedAfterMs !== undefined ? { fixedAfterMs: match.fixedAfterMs } : {}),
      didNotHelp: match.didNotHelp,
      lost: lost.map(({ key, setTo, now }) => ({ key, setTo, now })),
    },
  });
  return match;
}

/** The lesson the walk keeps, so each proposal can say whether it helped last time. */
export function memoryOf(match: EarlierMatch | undefined): RemediationMemory | undefined {
  if (!match) return undefined;
  return {
    earlierIncidentId: match.incidentId,
    ...(match.fixedBy ? { fixedBy: match.fixedBy } : {}),
    didNotHelp: match.didNotHelp,
  };
}
