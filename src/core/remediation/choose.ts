// Which step the findings select, read from the playbook files themselves so that editing
// playbooks/*.yaml changes what a report proposes. Steps are tried in file order (playbooks in
// the order they were loaded):
//   1. the first step with a selectedBy finding present (at selectedAtSeverity or above, and of one
//      of its selectedForCause classes, when set); a finding whose check the diagnosis already
//      answered selects no step this way (RUNBOOK §4: that check is done, the next step follows),
//      but the step whose selectedForAnswer names what the answer found (a duplicate to remove);
//   2. otherwise the first step with an otherwiseSelectedBy finding present;
//   3. otherwise no step.

import type { FindingId } from "../ids.js";
import type { Finding } from "../report/schema.js";
import type { Playbook, Step } from "./schema.js";

const SEVERITY_RANK = { critical: 0, warning: 1, info: 2 } as const;

export interface ChosenStep {
  playbook: Playbook;
  step: Step;
  /** The finding that selected the step. */
  selectedBy: FindingId;
  /** True when the step was chosen as a fallback (otherwiseSelectedBy). */
  fallback: boolean;
}

type FindingLike = Pick<Finding, "id"> & Partial<Pick<Finding, "severity" | "cause" | "answered" | "answer">>;

function strongest(findings: readonly FindingLike[], step?: Step): Map<FindingId, number> {
  const out = new Map<FindingId, number>();
  for (const f of findings) {
    // An answered finding selects only the step for what its answer found (the duplicate to remove).
    const forAnswer = f.answer !== undefined && step?.selectedForAnswer?.includes(f.answer) === true;
    if (step?.selectedForAnswer && !forAnswer) continue;
    if (step && f.answered === true && !forAnswer) continue;
    if (step?.selectedForCause && (!f.cause || !step.selectedForCause.includes(f.cause))) continue;
    const rank = SEVERITY_RANK[f.severity ?? "critical"];
    const seen = out.get(f.id);
    if (seen === undefined || rank < seen) out.set(f.id, rank);
  }
  return out;
}

export function chooseStep(
  playbooks: readonly Playbook[],
  findings: readonly FindingLike[],
): ChosenStep | undefined {
  return selectableSteps(playbooks, findings)[0];
}

/**
 * Every step these findings allow, in the order chooseStep tries them (selected ones first, then
 * fallbacks), each once: the steps the incident history may reorder.
 */
function selectableSteps(playbooks: readonly Playbook[], findings: readonly FindingLike[]): ChosenStep[] {
  const present = strongest(findings);
  const out: ChosenStep[] = [];
  const seen = new Set<string>();
  for (const playbook of playbooks) {
    for (const step of playbook.steps) {
      const limit = step.selectedAtSeverity ? SEVERITY_RANK[step.selectedAtSeverity] : 2;
      const selecting = strongest(findings, step);
      const hit = step.selectedBy.find((id) => (selecting.get(id) ?? 3) <= limit);
      if (hit && !seen.has(step.id)) {
        seen.add(step.id);
        out.push({ playbook, step, selectedBy: hit, fallback: false });
      }
    }
  }
  for (const playbook of playbooks) {
    for (const step of playbook.steps) {
      const hit = step.otherwiseSelectedBy.find((id) => present.has(id));
      if (hit && !seen.has(step.id)) {
        seen.add(step.id);
        out.push({ playbook, step, selectedBy: hit, fallback: true });
      }
    }
  }
  return out;
}

/**
 * The steps a walk for these findings may come to: each selectable step, then the steps its
 * playbook offers when it does not help (transitions.ineffective), in that order, each once.
 * The incident history may put any of them first when it fixed the same failure before.
 */
export function allowedSteps(playbooks: readonly Playbook[], findings: readonly FindingLike[]): ChosenStep[] {
  const out = selectableSteps(playbooks, findings);
  const seen = new Set<string>(out.map((c) => c.step.id));
  for (let i = 0; i < out.length; i++) {
    const from = out[i]!;
    for (const target of from.step.transitions.ineffective) {
      const step = from.playbook.steps.find((s) => s.id === target);
      if (!step || seen.has(step.id)) continue;
      seen.add(step.id);
      out.push({ playbook: from.playbook, step, selectedBy: from.selectedBy, fallback: true });
    }
  }
  return out;
}
