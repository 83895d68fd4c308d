// The shape every diagnosis rule has: one id, one pure evaluate().

import type { FindingId } from "../ids.js";
import type { EvidenceItem, Finding, Severity } from "../report/schema.js";
import type { DiagnosisContext } from "./context.js";

/** What a rule finds; runRules adds the rule's id. */
type RuleFinding = Omit<Finding, "id">;

export interface DiagnosisRule {
  id: FindingId;
  evaluate(context: DiagnosisContext): RuleFinding | null;
}

/** Builds a finding (with `more`, e.g. the quote); returns null without evidence, so no rule can fire on nothing. */
export function finding(
  severity: Severity,
  summary: string,
  evidence: EvidenceItem[],
  more: Partial<RuleFinding> = {},
): RuleFinding | null {
  if (evidence.length === 0) return null;
  return { severity, summary, evidence, ...more };
}

/** Evidence lists are cut to keep reports readable; the count says how many there were. */
export const MAX_LISTED = 5;
