// Evidence in, report out. Pure: `now` is a parameter and nothing here reads a clock or the network.
//
// Every candidate writer of the table is diagnosed on its own (the same evidence, each Flink job
// in turn as the writer); the report is the one of the writer in the worst state, so a healthy
// job never hides a failing one. The report then passes through the invariants (invariants.ts).

import { flinkJobIdOf, operatorIdOf } from "../attribution/attribute.js";
import type { Evidence, FlinkJobEvidence } from "../evidence/model.js";
import { matchEarlier, rankSteps } from "../history/match.js";
import type { IncidentHistory } from "../history/record.js";
import { SOURCE_NAMES, type StepId, type TriageId } from "../ids.js";
import { allowedSteps } from "../remediation/choose.js";
import type { Playbook } from "../remediation/schema.js";
import type { Finding, Report, ReportWriter } from "../report/schema.js";
import { buildContext, type DiagnosisContext, LIVE_JOB_STATES } from "./context.js";
import { writerCluster } from "./evidence-items.js";
import { catalogAccess, settleReport } from "./invariants.js";
import { buildNextStep } from "./next-step.js";
import { RULES, runRules } from "./registry.js";
import { iso } from "./snapshots.js";
import { pickVerdict, VERDICT_PRIORITY } from "./verdict.js";

export interface DiagnoseOptions {
  /** Table name as the person asked for it; defaults to the evidence's table. */
  tableName?: string;
  /** Spark catalog name for rendered statements; defaults to spark_catalog. */
  catalogName?: string;
  /** The loaded step playbooks: their selectedBy findings and order choose the next step. */
  playbooks: readonly Playbook[];
  /** The table's earlier incidents: what fixed the same failure then is proposed first. */
  history?: readonly IncidentHistory[];
}

const SEVERITY_RANK = { critical: 0, warning: 1, info: 2 } as const;
const RULE_ORDER = new Map(RULES.map((rule, index) => [rule.id, index]));

/** Triage first (in verdict order), then by severity, then in registry order. */
function orderFindings(findings: Finding[]): Finding[] {
  const rank = (f: Finding): [number, number, number] => {
    const verdict = VERDICT_PRIORITY.indexOf(f.id as TriageId);
    return [
      verdict < 0 ? VERDICT_PRIORITY.length : verdict,
      SEVERITY_RANK[f.severity],
      RULE_ORDER.get(f.id) ?? 0,
    ];
  };
  return [...findings].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    return ra[0] - rb[0] || ra[1] - rb[1] || ra[2] - rb[2];
  });
}

interface WriterDiagnosis {
  context: DiagnosisContext;
  findings: Finding[];
  verdict: Report["verdict"];
}

/**
 * The evidence once per candidate Flink writer (the configured or discovered one first). A job
 * that is no longer live and shares its name with a live one is an earlier run of the same
 * pipeline: its exceptions (an unknown commit before a resubmission) go with the live run.
 */
export function perWriterEvidence(evidence: Evidence): Evidence[] {
  // Each further connector is a writer of its own: diagnosed with Flink's writer set aside.
  const primary = evidence.connect;
  const asWriters = primary
    ? [...(evidence.flink?.writer ? [{ ...primary, others: undefined }] : []), ...(primary.others ?? [])]
    : [];
  const connectors = asWriters.map(
    (connect): Evidence => ({
      ...evidence,
      connect,
      ...(evidence.flink ? { flink: { jobs: evidence.flink.jobs } } : {}),
    }),
  );
  return [...perFlinkWriter(evidence), ...connectors];
}

/** Committer operator ids per job id, from the table's snapshots (flink.operator-id survives a savepoint restore). */
function operatorsByJob(evidence: Evidence): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  if (evidence.sources.catalog?.status !== "ok") return out;
  for (const s of evidence.catalog?.snapshots ?? []) {
    const job = flinkJobIdOf(s);
    const op = operatorIdOf(s);
    if (!job || !op) continue;
    const set = out.get(job) ?? new Set<string>();
    set.add(op);
    out.set(job, set);
  }
  return out;
}

function perFlinkWriter(evidence: Evidence): Evidence[] {
  const all = evidence.flink?.writers ?? [];
  if (!evidence.flink || all.length < 2) return [evidence];
  const live = all.filter((w) => LIVE_JOB_STATES.has(w.job.state));
  const operators = operatorsByJob(evidence);
  // The same writer under a new job id: the same name, or the same committer operator id.
  const sameWriter = (a: FlinkJobEvidence, b: FlinkJobEvidence) => {
    if (a.job.name === b.job.name) return true;
    const ours = operators.get(a.job.jobId);
    const theirs = operators.get(b.job.jobId);
    return Boolean(ours && theirs && [...ours].some((op) => theirs.has(op)));
  };
  const writers: FlinkJobEvidence[] = [];
  for (const w of all) {
    const successor = LIVE_JOB_STATES.has(w.job.state)
      ? undefined
      : live.find((l) => sameWriter(l, w) && l.job.startTimeMs >= w.job.startTimeMs);
    if (!successor) writers.push(w);
  }
  const merged = writers.map((w) => {
    if (!LIVE_JOB_STATES.has(w.job.state)) return w;
    const earlier = all.filter(
      (o) =>
        o !== w &&
        !LIVE_JOB_STATES.has(o.job.state) &&
        sameWriter(o, w) &&
        o.job.startTimeMs <= w.job.startTimeMs,
    );
    if (earlier.length === 0) return w;
    const exceptions = [...w.exceptions, ...earlier.flatMap((o) => o.exceptions)].sort(
      (a, b) => b.timestampMs - a.timestampMs,
    );
    return { ...w, exceptions };
  });
  return merged.map((writer) => ({ ...evidence, flink: { ...evidence.flink!, writer } }));
}

function diagnoseWriter(
  evidence: Evidence,
  now: number,
  options: Pick<DiagnoseOptions, "tableName" | "catalogName">,
): WriterDiagnosis {
  const context = buildContext(evidence, now, options);
  const findings = orderFindings(runRules(context));
  return { context, findings, verdict: pickVerdict(findings, context.writerStale) };
}

/** Lower is worse: the verdict priority, a stale writer before a fresh one, then the given order. */
function worse(a: WriterDiagnosis, b: WriterDiagnosis): boolean {
  const ra = VERDICT_PRIORITY.indexOf(a.verdict);
  const rb = VERDICT_PRIORITY.indexOf(b.verdict);
  if (ra !== rb) return ra < rb;
  return a.context.writerStale === true && b.context.writerStale !== true;
}

/** The writer in the worst state, with the evidence as the report reads it: that writer is Flink's (or Connect's) writer. */
export function worstWriter(
  evidence: Evidence,
  now: number,
  options: Pick<DiagnoseOptions, "tableName" | "catalogName">,
): { diagnosis: WriterDiagnosis; evidence: Evidence } {
  let chosen: { diagnosis: WriterDiagnosis; evidence: Evidence } | undefined;
  for (const variant of perWriterEvidence(evidence)) {
    const candidate = diagnoseWriter(variant, now, options);
    if (!chosen || worse(candidate, chosen.diagnosis)) chosen = { diagnosis: candidate, evidence: variant };
  }
  return chosen!;
}

/** Says which reading of an ambiguous `name.namespace.table` the bot took, and how to ask for the other. */
function catalogPrefixWords(catalog: string): string {
  return `Read ${catalog} at the start of the name as the catalog ${catalog}, not as the namespace of that name; to mean the namespace, put its catalog's name in front of the whole name.`;
}

export function diagnose(evidence: Evidence, now: number, options: DiagnoseOptions): Report {
  const chosen = worstWriter(evidence, now, options).diagnosis;
  const { context } = chosen;
  const sources = Object.fromEntries(
    SOURCE_NAMES.map((name) => {
      const s = evidence.sources[name] ?? { status: "not-configured" as const };
      return [
        name,
        {
          status: s.status,
          ...(s.latencyMs !== undefined ? { latencyMs: Math.max(0, s.latencyMs) } : {}),
          ...(s.error ? { error: s.error } : {}),
          ...(s.httpStatus !== undefined ? { httpStatus: s.httpStatus } : {}),
          ...(s.gaps && s.gaps.length > 0 ? { gaps: s.gaps.map((g) => ({ ...g })) } : {}),
        },
      ];
    }),
  ) as Report["sources"];
  const settled = settleReport(context, chosen.findings, chosen.verdict);
  const findings = orderFindings(settled.findings);
  // A verdict that rests only on the catalog's silence to the bot leads to no step on the writer.
  const nextStep = settled.stepless
    ? null
    : buildNextStep(
        context,
        findings,
        options.playbooks,
        rememberedStep(options, context.tableName, settled.verdict, findings),
      );
  const report: Report = {
    reportVersion: 1,
    table: context.tableName,
    generatedAt: new Date(now).toISOString(),
    verdict: settled.verdict,
    ...(evidence.catalogName ? { catalogSource: evidence.catalogName } : {}),
    ...(evidence.catalogName && evidence.catalogPrefixChosen
      ? { catalogNote: catalogPrefixWords(evidence.catalogName) }
      : {}),
    ...writerOf(context),
    findings,
    nextStep,
    sources,
  };
  if (!nextStep && settled.verdict !== "healthy") report.noStepReason = noStepReason(context);
  return report;
}

/** The step that fixed the same failure of this table before, when the history holds one. */
function rememberedStep(
  options: DiagnoseOptions,
  table: string,
  verdict: Report["verdict"],
  findings: readonly Finding[],
): StepId | undefined {
  if (!options.history || options.history.length === 0) return undefined;
  const match = matchEarlier(options.history, { table, verdict, findings });
  const allowed = allowedSteps(options.playbooks, findings).map((s) => s.step.id);
  const first = rankSteps(allowed, match)[0];
  return first?.fixedBefore ? first.stepId : undefined;
}

/** The diagnosed writer, for the card and for the follow-ups that judge its recovery. */
function writerOf(ctx: DiagnosisContext): { writer?: ReportWriter } {
  const w = ctx.writer;
  if (!w) return {};
  const operatorId = ctx.writerNewest ? operatorIdOf(ctx.writerNewest) : undefined;
  const name = w.kind === "flink" ? ctx.jobNames.get(w.jobId) : undefined;
  const cluster = writerCluster(ctx);
  return {
    writer: {
      kind: w.kind,
      id: w.kind === "flink" ? w.jobId : w.connector,
      ...(name ? { name } : {}),
      ...(cluster ? { cluster } : {}),
      ...(w.kind === "flink" && operatorId ? { operatorId } : {}),
      ...(ctx.writerNewest ? { lastCommitAt: iso(ctx.writerNewest.timestampMs) } : {}),
      // A commit expected later than now has not failed yet: a writer on schedule has no failure time.
      ...(ctx.troubled && ctx.window && ctx.window.failureMs <= ctx.now
        ? { failedAt: iso(ctx.window.failureMs) }
        : {}),
    },
  };
}

function noStepReason(ctx: DiagnosisContext): string {
  if (!ctx.table && catalogAccess(ctx.evidence.sources.catalog) === "credential") {
    return "The catalog refused the bot's own credential, so nothing here says the writer fails: renew the bot's catalog credential (ICEBERG_CATALOG_TOKEN, or ICEBERG_CATALOG_CREDENTIAL with ICEBERG_CATALOG_OAUTH_URI and ICEBERG_CATALOG_SCOPE) and diagnose again.";
  }
  if (!ctx.table) {
    return "The catalog could not be read, so no change can be chosen safely; make it reachable and diagnose again.";
  }
  if (ctx.neverCommitted) {
    return "The writer has never committed to this table: check that its sink targets this table and catalog, and read the job's logs for the first commit attempt.";
  }
  return "No playbook step is selected by these findings; the evidence above is what is known.";
}
