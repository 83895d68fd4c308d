// The shape every diagnosis rule has: one id, one pure evaluate().

import type { FindingId } from "../ids.js";
import type { EvidenceItem, Finding, Severity } from "../report/schema.js";
import type { DiagnosisContext } from "./context.js";

export interface DiagnosisRule {
  id: FindingId;
  evaluate(context: DiagnosisContext): Finding | null;
}

/** Builds a finding (with `more`, e.g. the quote); returns null without evidence, so no rule can fire on nothing. */
export function finding(
  id: FindingId,
  severity: Severity,
  summary: string,
  evidence: EvidenceItem[],
  more: Partial<Finding> = {},
): Finding | null {
  if (evidence.length === 0) return null;
  return { id, severity, summary, evidence, ...more };
}

/** Evidence lists are cut to keep reports readable; the count says how many there were. */
export const MAX_LISTED = 5;
