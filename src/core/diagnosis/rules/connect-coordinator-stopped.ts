// On the sink's main branch a failed commit ends the coordinator when the failure tolerance is 1
// (the default): the task goes FAILED and commits stop while lag climbs.

import { CONNECT_DEFAULTS, effectiveConnectNumber } from "../../properties.js";
import type { EvidenceItem } from "../../report/schema.js";
import { compact, quoteOf, writerLastCommit } from "../evidence-items.js";
import { connectFailures, firstLine } from "../failures.js";
import { type DiagnosisRule, finding } from "../rule.js";

const MAX_FAILURES_KEY = "iceberg.control.commit.max-consecutive-failures";

export const connectCoordinatorStopped: DiagnosisRule = {
  id: "connect-coordinator-stopped",
  evaluate(ctx) {
    const connect = ctx.connect;
    if (!connect) return null;
    const status = connect.connector;
    const failedTasks = status.tasks.filter((t) => t.state === "FAILED");
    if (status.state !== "FAILED" && failedTasks.length === 0) return null;
    // Only a commit failure stops the coordinator this way; a task that failed for another
    // reason is a commit-error with its own class (RUNBOOK §4 step 3).
    const failures = connectFailures(connect).filter((f) => f.kind !== "commit-error");
    if (failures.length === 0) return null;
    if (effectiveConnectNumber(connect.config, MAX_FAILURES_KEY) !== 1) return null;
    const raw = connect.config[MAX_FAILURES_KEY] ?? null;
    const failedParts = [
      ...(status.state === "FAILED" ? ["connector"] : []),
      ...failedTasks.map((t) => `task ${t.id}`),
    ];
    const items: EvidenceItem[] = failures.map((f) => ({
      source: "connect",
      detail: `${f.where} FAILED: ${f.line}`,
      data: { where: f.where ?? null, state: "FAILED", exception: f.line },
    }));
    const firstTrace = failedTasks[0]?.trace ?? status.trace;
    if (firstTrace && !items.some((i) => i.detail.includes(firstLine(firstTrace)))) {
      items.push({
        source: "connect",
        detail: `Trace starts: ${firstLine(firstTrace)}`,
        data: { trace: firstLine(firstTrace) },
      });
    }
    items.push({
      source: "connect",
      detail: `${MAX_FAILURES_KEY} = ${raw ?? `${CONNECT_DEFAULTS[MAX_FAILURES_KEY]} (unset, default)`}`,
      data: { key: MAX_FAILURES_KEY, value: raw, effective: 1 },
    });
    return finding(
      "critical",
      `Connector ${status.name}: ${failedParts.join(", ")} FAILED after a commit failure; with a failure tolerance of 1 the coordinator stopped and commits halted`,
      compact([...items, writerLastCommit(ctx)]),
      { quote: quoteOf(failures, failures[0]!) },
    );
  },
};
