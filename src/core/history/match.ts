// Memory per table: the earlier incident a new diagnosis repeats (same triage finding and root
// cause), the allowed steps ordered by what fixed it then, and an earlier change the table no
// longer holds (reverted or lost), named as the likely reason it failed again.

import type { FindingId, StepId } from "../ids.js";
import { causeKey, type IncidentHistory } from "./record.js";

export interface EarlierMatch {
  incidentId: string;
  openedAtMs: number;
  closedAtMs: number;
  triage?: FindingId;
  rootCause?: FindingId;
  /** The step after which the writer recovered, and how long after the change. */
  fixedBy?: StepId;
  fixedAfterMs?: number;
  /** Steps tried then that did not help, in the order they were tried. */
  didNotHelp: StepId[];
}

/**
 * The newest earlier incident of the same table with the same triage finding and root cause,
 * preferring one a step fixed. `history` may be in any order; incidents still open are ignored.
 */
export function matchEarlier(
  history: readonly IncidentHistory[],
  diagnosis: { table?: string; verdict: string; findings: ReadonlyArray<{ id: FindingId }> },
  excludeIncidentId?: string,
): EarlierMatch | undefined {
  const key = causeKey(diagnosis);
  if (!key.triage || key.triage === "healthy" || key.triage === "writer-idle") return undefined;
  const same = history
    .filter(
      (h) =>
        h.incidentId !== excludeIncidentId &&
        (!diagnosis.table || h.table === diagnosis.table) &&
        h.triage === key.triage &&
        h.rootCause === key.rootCause,
    )
    .sort((a, b) => b.closedAtMs - a.closedAtMs);
  const chosen = same.find((h) => h.fixedBy) ?? same[0];
  if (!chosen) return undefined;
  const fixed = chosen.steps.find((s) => s.outcome === "fixed");
  const didNotHelp = unique(chosen.steps.filter((s) => s.outcome === "did-not-help").map((s) => s.stepId));
  return {
    incidentId: chosen.incidentId,
    openedAtMs: chosen.openedAtMs,
    closedAtMs: chosen.closedAtMs,
    ...(chosen.triage ? { triage: chosen.triage } : {}),
    ...(chosen.rootCause ? { rootCause: chosen.rootCause } : {}),
    ...(fixed ? { fixedBy: fixed.stepId } : {}),
    ...(fixed?.recoveredAfterMs !== undefined ? { fixedAfterMs: fixed.recoveredAfterMs } : {}),
    didNotHelp: didNotHelp.filter((id) => id !== fixed?.stepId),
  };
}

/**
 * The allowed steps (in the playbook's order) with the one that fixed the earlier incident first
 * and the ones that did not help last; each marked. Without a match the order is unchanged.
 */
export function rankSteps(allowed: readonly StepId[], match: EarlierMatch | undefined) {
  const marked = unique(allowed).map((stepId, index) => ({
    stepId,
    index,
    /** It fixed the matched incident. */
    fixedBefore: match?.fixedBy === stepId,
    /** It was tried in the matched incident and the writer did not recover. */
    didNotHelp: match?.didNotHelp.includes(stepId) ?? false,
  }));
  const weight = (s: (typeof marked)[number]) => (s.fixedBefore ? 0 : s.didNotHelp ? 2 : 1);
  return marked
    .sort((a, b) => weight(a) - weight(b) || a.index - b.index)
    .map(({ stepId, fixedBefore, didNotHelp }) => ({ stepId, fixedBefore, didNotHelp }));
}

export interface LostChange {
  incidentId: string;
  stepId: StepId;
  appliedAtMs: number;
  /** The property, the value the change set, and what the table holds now (null: unset). */
  key: string;
  setTo: string;
  now: string | null;
}

/**
 * Property changes that fixed an earlier incident of the table and that its properties no longer
 * hold (reverted, or lost when the table was recreated): the likely reason it fails again.
 */
export function lostChanges(
  history: readonly IncidentHistory[],
  properties: Readonly<Record<string, string>>,
  match?: EarlierMatch,
): LostChange[] {
  const relevant = match ? history.filter((h) => h.incidentId === match.incidentId) : history;
  const out: LostChange[] = [];
  const seen = new Set<string>();
  for (const h of [...relevant].sort((a, b) => b.closedAtMs - a.closedAtMs)) {
    for (const step of h.steps) {
      if (step.outcome !== "fixed" || !step.setProperties || step.appliedAtMs === undefined) continue;
      for (const [key, setTo] of Object.entries(step.setProperties)) {
        if (seen.has(key)) continue;
        seen.add(key);
        const current = properties[key] ?? null;
        if (current !== setTo)
          out.push({
            incidentId: h.incidentId,
            stepId: step.stepId,
            appliedAtMs: step.appliedAtMs,
            key,
            setTo,
            now: current,
          });
      }
    }
  }
  return out;
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
