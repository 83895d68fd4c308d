// Evidence in, report out. Pure: `now` is a parameter and nothing here reads a clock or the network.

import type { Evidence } from "../evidence/model.js";
import { SOURCE_NAMES, TRIAGE_IDS } from "../ids.js";
import type { Playbook } from "../playbook/schema.js";
import type { Finding, Report } from "../report/schema.js";
import { buildContext } from "./context.js";
import { buildNextStep } from "./next-step.js";
import { RULES, runRules } from "./registry.js";
import { pickVerdict, VERDICT_PRIORITY } from "./verdict.js";

export interface DiagnoseOptions {
  /** Table name as the person asked for it; defaults to the evidence's table. */
  tableName?: string;
  /** Spark catalog name for rendered statements; defaults to spark_catalog. */
  catalogName?: string;
  /** The loaded playbooks: a next step's change is built from its definition there. */
  playbooks: readonly Playbook[];
}

const SEVERITY_RANK = { critical: 0, warning: 1, info: 2 } as const;
const RULE_ORDER = new Map(RULES.map((rule, index) => [rule.id, index]));
const TRIAGE = new Set<string>(TRIAGE_IDS);

/** Triage first (in verdict order), then by severity, then in registry order. */
export function orderFindings(findings: Finding[]): Finding[] {
  const rank = (f: Finding): [number, number, number] => [
    TRIAGE.has(f.id)
      ? VERDICT_PRIORITY.indexOf(f.id as (typeof VERDICT_PRIORITY)[number])
      : VERDICT_PRIORITY.length,
    SEVERITY_RANK[f.severity],
    RULE_ORDER.get(f.id) ?? 0,
  ];
  return [...findings].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    return ra[0] - rb[0] || ra[1] - rb[1] || ra[2] - rb[2];
  });
}

export function diagnose(evidence: Evidence, now: number, options: DiagnoseOptions): Report {
  const context = buildContext(evidence, now, options);
  const findings = orderFindings(runRules(context));
  const sources = Object.fromEntries(
    SOURCE_NAMES.map((name) => {
      const s = evidence.sources[name] ?? { status: "not-configured" as const };
      return [
        name,
        {
          status: s.status,
          ...(s.latencyMs !== undefined ? { latencyMs: Math.max(0, s.latencyMs) } : {}),
          ...(s.error ? { error: s.error } : {}),
        },
      ];
    }),
  ) as Report["sources"];
  return {
    reportVersion: 1,
    table: context.tableName,
    generatedAt: new Date(now).toISOString(),
    verdict: pickVerdict(findings, context.writerStale),
    findings,
    nextStep: buildNextStep(context, findings, options.playbooks),
    sources,
  };
}
