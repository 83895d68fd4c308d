// One next step per report. Which step is chosen by the loaded playbook files (their
// selectedBy findings and file order, see core/remediation/choose.ts), never by a list kept here;
// this module only fills the chosen step's change from the table's facts.
// Healthy reports have no next step.

import { simpleClassName } from "../evidence/exceptions.js";
import type { StepId } from "../ids.js";
import { type ChangeFacts, proposeChange } from "../remediation/change.js";
import { allowedSteps, chooseStep } from "../remediation/choose.js";
import type { Playbook, Step } from "../remediation/schema.js";
import type { Change, Finding, NextStep } from "../report/schema.js";
import {
  type RewriteFilter,
  renderDeleteSnapshotFiles,
  renderRewriteDataFiles,
  renderSnapshotsById,
  renderSnapshotsQuery,
} from "../statements.js";
import { recommitOf } from "../verification/open-items.js";
import { PLAYBOOK_STEP_SUMMARY } from "../words/labels.js";
import type { DiagnosisContext } from "./context.js";
import { quoteLine } from "./evidence-items.js";
import { checkUnknownCommit, snapshotsToCompare } from "./rules/commit-state-unknown.js";

/** A filter that leaves the partitions the writer still appends to, read from the partition spec. */
export function hotPartitionFilter(partitionFields: readonly string[]): RewriteFilter | null {
  for (const field of partitionFields) {
    const transform = /^(.+)_(day|hour)$/.exec(field);
    if (transform) {
      const column = transform[1]!;
      return transform[2] === "hour"
        ? { column, bound: { kind: "hours-ago", hours: 2 } }
        : { column, bound: { kind: "days-ago", days: 0 } };
    }
    if (/(^|_)(date|day|dt|ds)$/i.test(field)) return { column: field, bound: { kind: "days-ago", days: 0 } };
  }
  return null;
}

function manual(
  statement: string | undefined,
  language: "sql" | "shell" | "yaml" | "text",
  checklist: string[],
): Change {
  return { kind: "manual", ...(statement ? { statement } : {}), language, checklist };
}

const PLAYBOOK_ID = "commit-failures";

function step(id: StepId, summary: string, change: Change, automatic: boolean): NextStep {
  // The bot can apply only a change it knows how to make; a manual change is always the person's.
  return { id, playbook: PLAYBOOK_ID, summary, change, automatic: automatic && change.kind !== "manual" };
}

/** The competing jobs as "name (id)", read from the multiple-flink-jobs evidence. */
function flinkJobs(findings: readonly Finding[]): string[] {
  const f = findings.find((x) => x.id === "multiple-flink-jobs");
  return (f?.evidence ?? [])
    .map((e) => {
      const id = typeof e.data.jobId === "string" ? e.data.jobId : "";
      const name = typeof e.data.jobName === "string" ? e.data.jobName : undefined;
      return id ? (name ? `${name} (${id})` : id) : "";
    })
    .filter((label) => label.length > 0);
}

export function buildNextStep(
  ctx: DiagnosisContext,
  findings: readonly Finding[],
  playbooks: readonly Playbook[],
  /** The step that fixed the same failure on this table before: first when these findings allow it. */
  preferred?: StepId,
): NextStep | null {
  const remembered = preferred
    ? allowedSteps(playbooks, findings).find((s) => s.step.id === preferred)
    : undefined;
  const chosen = remembered ?? chooseStep(playbooks, findings);
  if (!chosen) return null;
  const built = buildStepChange(ctx, findings, chosen.step);
  return { ...built, playbook: chosen.playbook.id };
}

/**
 * The change of a step the bot makes itself, from the one change builder and the step's
 * definition in the playbooks: the report shows exactly what a proposal would.
 */
export function playbookChange(step: Step, ctx: DiagnosisContext, minimums?: Record<string, number>): Change {
  const facts: ChangeFacts = {
    table: ctx.tableName,
    writer: ctx.writer?.kind === "connect" ? "connect" : ctx.writer ? "flink" : "unknown",
    properties: ctx.table?.properties ?? {},
    ...(ctx.connect ? { connector: ctx.connect.connector.name, connectorConfig: ctx.connect.config } : {}),
    ...(ctx.connect?.cluster ? { connectCluster: ctx.connect.cluster } : {}),
    ...(ctx.evidence.catalogName ? { catalogSource: ctx.evidence.catalogName } : {}),
    ...(minimums ? { minimums } : {}),
  };
  return (
    proposeChange(step, facts) ??
    manual(undefined, "text", [`Step ${step.id} has no change for this writer in the playbooks.`])
  );
}

const COMMIT_ERROR_SUMMARY: Partial<Record<StepId, (cls: string) => string>> = {
  "renew-catalog-credential": (cls) =>
    `Renew the writer's catalog credential: the catalog refuses it (${cls}), and a restart would send the same one`,
  "check-catalog-service": (cls) =>
    `Check the catalog service before touching the writer: it fails or times out on commits (${cls})`,
  "raise-writer-memory": (cls) =>
    `Give the writer more memory or make it hold less: it runs out on its commit path (${cls})`,
  "fix-writer-error": (cls) =>
    `Fix what makes the writer throw ${cls} on every commit; retries and restarts repeat it`,
};

/** A commit-error step: the playbook's guidance, led by the exception it answers. */
function commitErrorStep(ctx: DiagnosisContext, findings: readonly Finding[], definition: Step): NextStep {
  const quote = findings.find((f) => f.id === "commit-error")?.quote;
  const cls = quote ? simpleClassName(quote.exception) : "the quoted exception";
  const change = playbookChange(definition, ctx);
  const lead = quote ? [`The exception: ${quoteLine(quote)}.`] : [];
  const withQuote: Change =
    change.kind === "manual" ? { ...change, checklist: [...lead, ...change.checklist] } : change;
  return step(definition.id, COMMIT_ERROR_SUMMARY[definition.id]!(cls), withQuote, false);
}

/** Steps that are the same checklist for every table. */
const MANUAL_STEPS: Partial<Record<StepId, { summary: string; checklist: string[] }>> = {
  "check-checkpoints": {
    summary: "Get the writer's checkpoints completing first: the commit only runs after one completes",
    checklist: [
      "Read the failure reason of the latest failed checkpoint.",
      "Look for operators under high backpressure upstream of the sink.",
      "Compare the end-to-end checkpoint duration with the checkpoint timeout.",
    ],
  },
  "apply-schema-first": {
    summary: "Apply schema changes to the table before records with the new schema arrive",
    checklist: [
      "Add the new columns to the table ahead of the producers' change.",
      "If that is not possible, plan for a short drop in throughput when a new schema arrives.",
    ],
  },
};

/** The playbook's manual change with the statement that names this table's snapshots, when the findings name them. */
function withStatement(
  ctx: DiagnosisContext,
  definition: Step,
  fallback: string,
  named: { summary: string; statement: string } | undefined,
): NextStep {
  const change = playbookChange(definition, ctx);
  if (!named || change.kind !== "manual") return step(definition.id, fallback, change, false);
  return step(
    definition.id,
    named.summary,
    { ...change, statement: named.statement, language: "sql" },
    false,
  );
}

function buildStepChange(ctx: DiagnosisContext, findings: readonly Finding[], definition: Step): NextStep {
  const id = definition.id;
  const target = { table: ctx.evidence.table, ...(ctx.catalogName ? { catalog: ctx.catalogName } : {}) };
  if (COMMIT_ERROR_SUMMARY[id]) return commitErrorStep(ctx, findings, definition);
  const fromPlaybook = PLAYBOOK_STEP_SUMMARY[id];
  if (fromPlaybook) return step(id, fromPlaybook, playbookChange(definition, ctx), true);
  const fixed = MANUAL_STEPS[id];
  if (fixed) return step(id, fixed.summary, manual(undefined, "text", fixed.checklist), false);
  switch (id) {
    case "verify-unknown-commit": {
      const failure = ctx.failures.find((f) => f.kind === "state-unknown");
      const check =
        failure?.atMs !== undefined && ctx.table ? checkUnknownCommit(ctx, failure.atMs) : undefined;
      const compare = check ? snapshotsToCompare(check) : [];
      const from =
        check?.before?.timestampMs ??
        ctx.window?.startMs ??
        ctx.writerNewest?.timestampMs ??
        ctx.now - ctx.staleAfterMs;
      return step(
        id,
        compare.length > 0
          ? `Compare snapshots ${compare.join(", ")} before restarting or retrying anything`
          : "Check whether the writer's last commit landed before restarting or retrying anything",
        // The bot reads the table itself (the finding says what it saw); the query lets a person look too.
        {
          kind: "read-only-check",
          statement: renderSnapshotsQuery({ ...target, fromMs: from - ctx.intervalMs }),
          language: "sql",
          checklist: [
            ...(compare.length > 0
              ? [
                  `Compare snapshots ${compare.join(", ")}: their flink.max-committed-checkpoint-id, added-data-files and added-records.`,
                ]
              : ["Look for a snapshot from the writer newer than the failure time."]),
            "If the in-flight commit landed, do not replay it; if a later snapshot holds the same data again, remove the duplicate before anything else.",
            "If it did not land, check the catalog and the network before restarting the writer.",
          ],
        },
        true,
      );
    }
    case "remove-duplicate-commit": {
      const duplicate = findings
        .find((f) => f.id === "commit-state-unknown")
        ?.evidence.find((e) => e.data.duplicate === true)?.data.snapshotIds;
      const [first, second] = Array.isArray(duplicate) ? duplicate.map(String) : [];
      return withStatement(
        ctx,
        definition,
        "Remove the duplicate commit the unknown commit left",
        first !== undefined && second !== undefined
          ? {
              summary: `Remove the duplicate commit: snapshot ${second} holds the same data as snapshot ${first}`,
              statement: renderDeleteSnapshotFiles(target, second),
            }
          : undefined,
      );
    }
    case "confirm-recommit": {
      const unknown = findings.find((f) => f.id === "commit-state-unknown");
      const recommit = unknown ? recommitOf(unknown) : undefined;
      return withStatement(
        ctx,
        definition,
        "Confirm the lost commit's data landed once",
        recommit
          ? {
              summary: `Confirm the lost commit's data landed once: the writer committed again in snapshot ${recommit.snapshot}`,
              statement: renderSnapshotsById(target, recommit.compared),
            }
          : undefined,
      );
    }
    case "move-compaction-off-hot-partitions": {
      const filter = hotPartitionFilter(ctx.table?.partitionFields ?? []);
      const statement = renderRewriteDataFiles({ ...target, ...(filter ? { where: filter } : {}) });
      const checklist = [
        "Change the compaction job's schedule or filter so it leaves the partitions the writer still appends to.",
        "Keep partial progress on so a conflict loses one group, not the whole rewrite.",
      ];
      if (!filter)
        checklist.unshift(
          "The table has no time partition: add a where filter that excludes the partitions the writer touches.",
        );
      return step(
        id,
        "Compact only the partitions the writer has left, with partial progress",
        manual(statement, "sql", checklist),
        false,
      );
    }
    case "one-committer-per-table": {
      const jobs = flinkJobs(findings);
      if (jobs.length === 0 && findings.some((f) => f.id === "committers-inside-job")) {
        return step(
          id,
          `Leave one committer per table inside ${ctx.writer?.kind === "flink" ? `job ${ctx.writer.jobId}` : "the job"}`,
          manual(undefined, "text", [
            "Find the operators in the job that commit to this table: a second sink to the same table, or a custom sink whose subtasks each commit.",
            "Keep one committer per table: the Iceberg sink's single committer operator, fed by all writer subtasks.",
            "Confirm new snapshots carry one flink.job-id and one flink.max-committed-checkpoint-id per checkpoint.",
          ]),
          false,
        );
      }
      return step(
        id,
        `Leave one committing writer on the table${jobs.length > 0 ? ` (jobs ${jobs.join(", ")})` : ""}`,
        manual(undefined, "text", [
          `Decide which job owns the table${jobs.length > 0 ? ` among ${jobs.join(" and ")}` : ""} and stop the other, or merge both into one job.`,
          "Confirm only one flink.job-id appears in new snapshots.",
        ]),
        false,
      );
    }
    case "keep-writer-last-snapshot": {
      const newer = ctx.writerNewestIndex >= 0 ? ctx.snapshots.length - 1 - ctx.writerNewestIndex : 0;
      // Enough to keep every snapshot newer than the writer's last, rounded up to 50.
      const minimums = { "history.expire.min-snapshots-to-keep": Math.ceil((newer + 1) / 50) * 50 };
      return step(
        id,
        "Keep enough snapshots that expiry cannot remove the Flink writer's last commit",
        playbookChange(definition, ctx, minimums),
        true,
      );
    }
    case "commit-less-often": {
      if (ctx.writer?.kind === "connect" && ctx.connect) {
        return step(
          id,
          "Commit less often: raise the connector's commit interval",
          playbookChange(definition, ctx),
          true,
        );
      }
      return step(
        id,
        "Commit less often: lengthen the Flink checkpoint interval (the commit interval)",
        manual("execution.checkpointing.interval: 5min", "yaml", [
          "Set the job's checkpoint interval to at least a few minutes.",
          "Redeploy from a savepoint, keeping the sink's operator ids.",
        ]),
        false,
      );
    }
    default:
      return step(
        "idempotent-restart",
        "Restart the writer so it resumes from its committed state without duplicating data",
        manual(
          undefined,
          "text",
          ctx.writer?.kind === "connect"
            ? [
                "Keep iceberg.coordinator.transactional.prefix unchanged across the restart.",
                "Restart the connector and watch for its next snapshot.",
              ]
            : [
                "Keep the sink's operator ids stable (uidPrefix on FlinkSink, uidSuffix on IcebergSink).",
                "Restart from the latest savepoint or retained checkpoint, never from scratch.",
              ],
        ),
        false,
      );
  }
}
