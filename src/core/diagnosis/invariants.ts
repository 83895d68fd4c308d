// The invariants every report holds, enforced here and nowhere else:
//   1. a verdict other than healthy has at least one finding with evidence, and either a next
//      step or noStepReason;
//   2. healthy is never the verdict while a source that answered shows a commit failure, nor when
//      the catalog did not answer (the verdict is then about what could be read, and the verdict
//      finding says first that the catalog was unreachable);
//   3. the same fact (source and words) is listed once per report, and each finding id once;
//   4. a next step is automatic exactly when its change is one the bot makes or runs (any kind but
//      manual: property and connector changes, a connector restart, a read-only check);
//   5. no critical finding next to writer-idle (a writer quiet by design pages nobody);
//   6. every triage finding caused by an exception quotes it (root class and message, count, when).
// Healthy without the catalog is allowed only on positive evidence from Flink (RUNBOOK §3 "the
// bot's own access"): the committer's elapsed time not stale, checkpoints completing, no failure.
// settleReport() applies 2 and 3 while the report is built (next-step.ts keeps 4); reportViolations()
// checks all four on a finished report, from the evidence, independently of the rules.

import { flinkJobIdOf } from "../attribution/attribute.js";
import type { Evidence, SourceStatus } from "../evidence/model.js";
import type { TriageId } from "../ids.js";
import type { EvidenceItem, Finding, Report } from "../report/schema.js";
import type { DiagnosisContext } from "./context.js";
import {
  compact,
  describeWriter,
  elapsedMetric,
  failureItem,
  quoteOf,
  writerLastCommit,
} from "./evidence-items.js";
import { type CommitFailure, connectFailures, flinkFailuresSince, newestFirst } from "./failures.js";
import { findNewestIndex } from "./snapshots.js";
import { FALLBACK_INTERVAL_MS, latestCheckpointFailed, sourceOk, staleAfter } from "./writer.js";

const VERDICT_FOR: Record<CommitFailure["kind"], TriageId> = {
  "state-unknown": "commit-state-unknown",
  validation: "validation-conflict",
  "commit-failed": "commit-conflict",
  "coordinator-terminated": "commit-failing",
  "commit-error": "commit-error",
};

/** Triage findings that rest on an exception and must quote it (invariant 6). */
const EXCEPTION_TRIAGE: ReadonlySet<string> = new Set([
  "commit-error",
  "commit-conflict",
  "commit-state-unknown",
  "validation-conflict",
  "connect-coordinator-stopped",
]);

/** Why the catalog could not be read, as the bot's access problem it is. */
export function catalogAccess(status: SourceStatus | undefined): "credential" | "unreachable" {
  const auth =
    status?.httpStatus === 401 || status?.httpStatus === 403 || status?.errorCode === "auth_failed";
  return auth ? "credential" : "unreachable";
}

/**
 * Flink positively shows the writer committing while the catalog cannot be read: the committer's
 * elapsedSecondsSinceLastSuccessfulCommit not stale, the job RUNNING with checkpoints completing.
 */
function flinkShowsCommitting(evidence: Evidence): boolean {
  if (!sourceOk(evidence, "flink")) return false;
  const w = evidence.flink?.writer;
  const elapsed = w?.committer?.elapsedSecondsSinceLastSuccessfulCommit;
  if (!w || elapsed === undefined || w.job.state !== "RUNNING") return false;
  if (latestCheckpointFailed(w.checkpoints)) return false;
  return elapsed * 1000 <= staleAfter(w.checkpointConfig?.intervalMs ?? FALLBACK_INTERVAL_MS);
}

/**
 * Commit failures that a source which answered shows now: an unknown commit state in any writer's
 * exception history; any other commit exception newer than that job's newest snapshot (any at all
 * when the catalog cannot say); a FAILED Connect connector or task whose trace names one.
 */
function visibleCommitFailures(evidence: Evidence): CommitFailure[] {
  const out: CommitFailure[] = [];
  const snapshots = sourceOk(evidence, "catalog") ? (evidence.catalog?.snapshots ?? []) : [];
  if (sourceOk(evidence, "flink") && evidence.flink) {
    const jobs = evidence.flink.writers ?? (evidence.flink.writer ? [evidence.flink.writer] : []);
    for (const job of jobs) {
      const newest = findNewestIndex(snapshots, (s) => flinkJobIdOf(s) === job.job.jobId);
      out.push(...flinkFailuresSince(job, snapshots[newest]?.timestampMs));
    }
  }
  if (sourceOk(evidence, "connect") && evidence.connect) {
    for (const c of [evidence.connect, ...(evidence.connect.others ?? [])]) out.push(...connectFailures(c));
  }
  return newestFirst(out);
}

function catalogItem(ctx: DiagnosisContext): EvidenceItem {
  const status = ctx.evidence.sources.catalog;
  const why = status?.status === "unavailable" ? (status.error ?? "no answer") : "not configured";
  const access = catalogAccess(status);
  return {
    source: "catalog",
    detail:
      access === "credential"
        ? `The Iceberg REST catalog refused the bot's credential (${why}): the table's snapshots could not be read, so this verdict rests on the other sources; this is the bot's access, not a sign that the writer fails`
        : `The Iceberg REST catalog was unreachable (${why}): the table's snapshots could not be read, so this verdict rests on the other sources`,
    data: {
      catalog: status?.status ?? "not-configured",
      access,
      ...(status?.httpStatus !== undefined ? { httpStatus: status.httpStatus } : {}),
      ...(status?.error ? { error: status.error } : {}),
    },
  };
}

function stalenessEvidence(ctx: DiagnosisContext): EvidenceItem[] {
  const items = compact([writerLastCommit(ctx), elapsedMetric(ctx)]);
  if (ctx.table && !ctx.writerNewest) {
    items.push({
      source: "catalog",
      detail: `No snapshot from ${describeWriter(ctx)} among the table's ${ctx.snapshots.length} snapshots`,
      data: { snapshotCount: ctx.snapshots.length },
    });
  }
  if (ctx.job) {
    items.push({
      source: "flink",
      detail: `Flink job state: ${ctx.job.job.state}`,
      data: { jobId: ctx.job.job.jobId, state: ctx.job.job.state },
    });
  }
  if (ctx.connect) {
    const c = ctx.connect.connector;
    items.push({
      source: "connect",
      detail: `Connector ${c.name} is ${c.state}; ${c.tasks.map((t) => `task ${t.id} ${t.state}`).join(", ") || "no tasks"}`,
      data: { connector: c.name, state: c.state, tasks: c.tasks.map((t) => ({ id: t.id, state: t.state })) },
    });
  }
  if (!ctx.table) items.push(catalogItem(ctx));
  return items;
}

function factKey(item: EvidenceItem): string {
  return `${item.source}\u0000${item.detail}`;
}

/** One finding per id (evidence merged), each fact listed once: where it first appears. */
function dedupeFacts(findings: readonly Finding[]): Finding[] {
  const byId = new Map<string, Finding>();
  for (const f of findings) {
    const seen = byId.get(f.id);
    if (seen) byId.set(f.id, { ...seen, evidence: [...seen.evidence, ...f.evidence] });
    else byId.set(f.id, f);
  }
  const owner = new Map<string, string>();
  const out: Finding[] = [];
  for (const f of byId.values()) {
    const kept: EvidenceItem[] = [];
    for (const item of f.evidence) {
      const key = factKey(item);
      if (owner.has(key)) continue;
      owner.set(key, f.id);
      kept.push(item);
    }
    if (kept.length === 0) {
      const first = owner.get(factKey(f.evidence[0]!))!;
      kept.push({
        source: f.evidence[0]!.source,
        detail: `Same evidence as ${first}, listed there`,
        data: { seeFinding: first },
      });
    }
    out.push({ ...f, evidence: kept });
  }
  return out;
}

/** Applies invariants 2 and 3 to the chosen writer's findings and verdict. */
export function settleReport(
  ctx: DiagnosisContext,
  findings: readonly Finding[],
  verdict: TriageId,
): { findings: Finding[]; verdict: TriageId; stepless: boolean } {
  let stepless = false;
  let out = [...findings];
  let settled = verdict;
  const catalogAnswered = sourceOk(ctx.evidence, "catalog");
  if (settled === "healthy") {
    const failure = visibleCommitFailures(ctx.evidence)[0];
    if (failure) {
      settled = VERDICT_FOR[failure.kind];
      out.unshift({
        id: settled,
        severity: "critical",
        summary: `A commit failure is visible although ${describeWriter(ctx)} looks on schedule: ${failure.line.slice(0, 160)}`,
        evidence: [failureItem(failure)],
        quote: quoteOf([failure], failure),
        ...(failure.cause ? { cause: failure.cause } : {}),
      });
    } else if (
      !catalogAnswered &&
      flinkShowsCommitting(ctx.evidence) &&
      out.some((f) => f.id === "healthy")
    ) {
      // Healthy on Flink's positive evidence; the healthy finding says first that the catalog could not be read.
      out = out.map((f) => (f.id === "healthy" ? { ...f, evidence: [catalogItem(ctx), ...f.evidence] } : f));
    } else if (!catalogAnswered) {
      // The catalog's silence is the bot's access problem: it fails nothing on the writer and
      // leads to no step on it (RUNBOOK §3, the bot's own access).
      stepless = true;
      settled = "commit-failing";
      out.unshift({
        id: "commit-failing",
        severity: "critical",
        summary:
          catalogAccess(ctx.evidence.sources.catalog) === "credential"
            ? `The catalog refused the bot's credential, so ${describeWriter(ctx)}'s commits cannot be confirmed and no other source shows them landing`
            : `The catalog did not answer, so ${describeWriter(ctx)}'s commits cannot be confirmed; the writer commits through the same catalog`,
        evidence: compact([catalogItem(ctx), elapsedMetric(ctx)]),
      });
    }
  }
  if (settled !== "healthy") out = out.filter((f) => f.id !== "healthy");
  if (settled !== "healthy" && !out.some((f) => f.id === settled)) {
    // The verdict came from staleness alone: say what shows it.
    out.unshift({
      id: settled,
      severity: "critical",
      summary: `${describeWriter(ctx)} has stopped committing, and no source names a more specific cause`,
      evidence: stalenessEvidence(ctx),
    });
  }
  const last = writerLastCommit(ctx);
  if (
    settled !== "healthy" &&
    last &&
    !out.some((f) => f.evidence.some((e) => factKey(e) === factKey(last)))
  ) {
    // Every failing report says when the failing writer last committed ("failing for" counts from it).
    out = out.map((f) => (f.id === settled ? { ...f, evidence: [...f.evidence, last] } : f));
  }
  if (!catalogAnswered && settled !== "healthy") {
    // The verdict finding says first that the catalog could not be read.
    out = out.map((f) =>
      f.id === settled && !f.evidence.some((e) => factKey(e) === factKey(catalogItem(ctx)))
        ? { ...f, evidence: [catalogItem(ctx), ...f.evidence] }
        : f,
    );
  }
  // Quiet by design and critical cannot both hold: a critical finding means the silence is not normal.
  if (out.some((f) => f.severity === "critical")) out = out.filter((f) => f.id !== "writer-idle");
  return { findings: dedupeFacts(out), verdict: settled, stepless };
}

/** Every invariant a finished report breaks, in words; empty when it holds them all. */
export function reportViolations(report: Report, evidence: Evidence): string[] {
  const problems: string[] = [];
  const ids = report.findings.map((f) => f.id);
  if (report.verdict !== "healthy") {
    if (!report.findings.some((f) => f.evidence.length > 0))
      problems.push("non-healthy verdict without evidence");
    if (!report.nextStep && !report.noStepReason)
      problems.push("non-healthy verdict with neither a step nor a reason");
    if (ids.includes("healthy")) problems.push(`verdict ${report.verdict} next to a healthy finding`);
  } else {
    if (!sourceOk(evidence, "catalog")) {
      if (!flinkShowsCommitting(evidence))
        problems.push(
          "healthy although the catalog did not answer and no source shows the writer committing",
        );
      else if (report.findings.find((f) => f.id === "healthy")?.evidence[0]?.source !== "catalog")
        problems.push("healthy without the catalog does not say first that the catalog could not be read");
    }
    const failure = visibleCommitFailures(evidence)[0];
    if (failure) problems.push(`healthy although a source shows ${failure.line}`);
  }
  if (!sourceOk(evidence, "catalog") && report.verdict !== "healthy") {
    const first = report.findings.find((f) => f.id === report.verdict)?.evidence[0];
    if (first?.source !== "catalog")
      problems.push("the verdict does not say first that the catalog was unreachable");
  }
  // A failure is something seen: never a commit still expected after the report was made.
  if (report.writer?.failedAt && Date.parse(report.writer.failedAt) > Date.parse(report.generatedAt))
    problems.push("the writer's failure time is after the report was made");
  if (new Set(ids).size !== ids.length) problems.push("a finding id is listed twice");
  if (ids.includes("writer-idle")) {
    for (const f of report.findings)
      if (f.severity === "critical") problems.push(`critical finding ${f.id} for a writer-idle writer`);
  }
  for (const f of report.findings) {
    if (EXCEPTION_TRIAGE.has(f.id) && !f.quote) problems.push(`finding ${f.id} does not quote its exception`);
  }
  const facts = new Set<string>();
  for (const f of report.findings) {
    for (const item of f.evidence) {
      const key = factKey(item);
      if (facts.has(key)) problems.push(`fact listed twice: ${item.detail}`);
      facts.add(key);
    }
  }
  const step = report.nextStep;
  if (step && step.automatic !== (step.change.kind !== "manual")) {
    problems.push(`step ${step.id}: automatic ${step.automatic} with a ${step.change.kind} change`);
  }
  return problems;
}
