// Failures that are not conflicts, and silence that is not failure (RUNBOOK §3 commit-error,
// writer-never-committed, writer-idle, committers-inside-job, the staleness floor, the bot's own
// access; §4 the step per cause, the answered unknown commit, the writer's identity by operator id).

import { describe, expect, it } from "vitest";
import { diagnose } from "../../../src/core/diagnosis/diagnose.js";
import {
  classifyErrorCause,
  classifyFlinkException,
  connectFailures,
} from "../../../src/core/diagnosis/failures.js";
import { expiryEvidence } from "../../../src/core/diagnosis/idle.js";
import { reportViolations } from "../../../src/core/diagnosis/invariants.js";
import { staleAfter } from "../../../src/core/diagnosis/writer.js";
import { parseExceptionChain } from "../../../src/core/evidence/exceptions.js";
import type { Evidence, FlinkException } from "../../../src/core/evidence/model.js";
import { chooseStep } from "../../../src/core/remediation/choose.js";
import type { Report } from "../../../src/core/report/schema.js";
import {
  connect,
  DAY,
  evidence,
  flinkJob,
  HOUR,
  JOB,
  JOB2,
  MIN,
  NOW,
  SEC,
  series,
  snap,
  table,
} from "../../support/evidence-builders.js";
import { PLAYBOOKS } from "../../support/playbooks.js";

const report = (ev: Evidence): Report => diagnose(ev, NOW, { playbooks: PLAYBOOKS });
const ids = (r: Report) => r.findings.map((f) => f.id);

const CONNECT_WRAPPER =
  "org.apache.kafka.connect.errors.ConnectException: Exiting WorkerSinkTask due to unrecoverable exception.\n\tat org.apache.kafka.connect.runtime.WorkerSinkTask.deliverMessages(WorkerSinkTask.java:636)\n\tat org.apache.kafka.connect.runtime.WorkerTask.run(WorkerTask.java:237)";

function taskTrace(...causes: string[]): string {
  return [
    CONNECT_WRAPPER,
    ...causes.map(
      (c) =>
        `Caused by: ${c}\n\tat org.apache.iceberg.rest.HTTPClient.execute(HTTPClient.java:336)\n\t... 3 more`,
    ),
  ].join("\n");
}

/** A Flink exception as the history reports a committer failure: a wrapper with causes below it. */
function wrapped(
  ago: number,
  root: string,
  taskName = "IcebergFilesCommitter -> Sink: IcebergSink iceberg.db.events (1/1)#4",
): FlinkException {
  return {
    timestampMs: NOW - ago,
    exceptionName: "java.lang.RuntimeException",
    message: "Error while confirming checkpoint",
    stacktrace: `java.lang.RuntimeException: Error while confirming checkpoint\n\tat org.apache.flink.runtime.taskmanager.Task.lambda$notifyCheckpoint$12(Task.java:1460)\nCaused by: ${root}\n\tat org.apache.iceberg.rest.ErrorHandlers$DefaultErrorHandler.accept(ErrorHandlers.java:212)\n\t... 5 more\n`,
    taskName,
  };
}

/** A Flink writer that stopped committing 50 minutes ago and whose committer throws `root`. */
function failingWith(...exceptions: FlinkException[]): Evidence {
  const job = flinkJob();
  return evidence({
    table: table({ snapshots: series(6 * HOUR, 50 * MIN, 5 * MIN) }),
    flink: { ...job, exceptions },
  });
}

describe("the Caused by chain", () => {
  it("reads a Flink trace down to its root, keeping the first line of a long message", () => {
    const chain = parseExceptionChain(
      "java.lang.RuntimeException: Error while confirming checkpoint\n\tat a.B.c(B.java:1)\nCaused by: org.apache.iceberg.exceptions.CommitStateUnknownException: Service failed: 504: Gateway timed out\nCannot determine whether the commit was successful or not\n\tat x.Y.z(Y.java:2)\n\t... 4 more\nCaused by: org.apache.iceberg.exceptions.ServiceFailureException: Service failed: 504\n\t... 9 more",
    );
    expect(chain.map((c) => c.className)).toEqual([
      "java.lang.RuntimeException",
      "org.apache.iceberg.exceptions.CommitStateUnknownException",
      "org.apache.iceberg.exceptions.ServiceFailureException",
    ]);
    expect(chain[1]!.message).toBe("Service failed: 504: Gateway timed out");
  });

  it("skips suppressed exceptions and their causes", () => {
    const chain = parseExceptionChain(
      "a.b.Outer: top\n\tat a.b.C.d(C.java:1)\n\tSuppressed: a.b.Side: noise\n\t\tat a.b.E.f(E.java:2)\n\tCaused by: a.b.SideCause: more noise\nCaused by: a.b.Root: the reason\n\tat a.b.G.h(G.java:3)",
    );
    expect(chain.map((c) => c.className)).toEqual(["a.b.Outer", "a.b.Root"]);
  });

  it("classes a root by what it says went wrong, never by Kafka Connect's wrapper", () => {
    const cause = (trace: string) => classifyErrorCause(parseExceptionChain(trace));
    expect(
      cause(taskTrace("org.apache.iceberg.exceptions.ForbiddenException: Forbidden: Invalid Token")),
    ).toBe("auth");
    expect(
      cause(taskTrace("org.apache.iceberg.exceptions.NotAuthorizedException: Not authorized: Token expired")),
    ).toBe("auth");
    expect(
      cause(
        taskTrace(
          "org.apache.iceberg.exceptions.RESTException: Error occurred while processing GET request",
          "java.net.SocketTimeoutException: Read timed out",
        ),
      ),
    ).toBe("unavailable");
    expect(
      cause(taskTrace("org.apache.iceberg.exceptions.ServiceUnavailableException: Service unavailable: 503")),
    ).toBe("unavailable");
    expect(cause(taskTrace("java.lang.OutOfMemoryError: Java heap space"))).toBe("resources");
    expect(
      cause(
        taskTrace("org.apache.iceberg.exceptions.AlreadyExistsException: Table already exists: db.ledgers"),
      ),
    ).toBe("writer-error");
    expect(cause(CONNECT_WRAPPER)).toBe("writer-error");
  });

  it("leaves checkpoint failures and a snapshot missing on restore to their own findings", () => {
    expect(
      classifyFlinkException(
        wrapped(
          MIN,
          "org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint expired before completing.",
        ),
      ),
    ).toBeNull();
    expect(
      classifyFlinkException(
        wrapped(
          MIN,
          "org.apache.iceberg.exceptions.NotFoundException: Failed to open input stream for file: s3://lake/db/events/metadata/snap-1.avro",
        ),
      ),
    ).toBeNull();
    // A conflict stays a conflict whatever wraps it, and quotes the exception that names it.
    const conflict = classifyFlinkException(
      wrapped(
        MIN,
        "org.apache.iceberg.exceptions.CommitFailedException: Commit failed: Requirement failed: branch main has changed",
      ),
    );
    expect(conflict?.kind).toBe("commit-failed");
    expect(conflict?.root.className).toBe("org.apache.iceberg.exceptions.CommitFailedException");
    expect(conflict?.thrownAs).toBe("java.lang.RuntimeException");
  });

  it("reads a failed Connect task's trace to its root, and a coordinator stop stays a commit failure", () => {
    const failures = connectFailures(
      connect({ taskState: "FAILED", trace: taskTrace("java.lang.OutOfMemoryError: Java heap space") }),
    );
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ kind: "commit-error", cause: "resources", where: "task 0" });
    expect(failures[0]!.root).toEqual({
      className: "java.lang.OutOfMemoryError",
      message: "Java heap space",
    });
  });
});

describe("commit-error", () => {
  it.each([
    [
      "org.apache.iceberg.exceptions.NotAuthorizedException: Not authorized: Token expired",
      "auth",
      "renew-catalog-credential",
    ],
    [
      "org.apache.iceberg.exceptions.ServiceFailureException: Server error: SdkClientException: Connect to db failed",
      "unavailable",
      "check-catalog-service",
    ],
    ["java.lang.OutOfMemoryError: Java heap space", "resources", "raise-writer-memory"],
    [
      "java.lang.IllegalStateException: Cannot determine partition spec: no data files have been added",
      "writer-error",
      "fix-writer-error",
    ],
  ])("%s is class %s and leads to %s", (root, cause, step) => {
    const r = report(failingWith(wrapped(40 * MIN, root), wrapped(25 * MIN, root), wrapped(10 * MIN, root)));
    expect(r.verdict).toBe("commit-error");
    const f = r.findings.find((x) => x.id === "commit-error")!;
    expect(f.cause).toBe(cause);
    expect(f.quote).toMatchObject({
      exception: root.slice(0, root.indexOf(":")),
      message: root.slice(root.indexOf(": ") + 2),
      thrownAs: "java.lang.RuntimeException",
      count: 3,
      firstSeen: new Date(NOW - 40 * MIN).toISOString(),
      lastSeen: new Date(NOW - 10 * MIN).toISOString(),
    });
    expect(ids(r)).not.toContain("commit-failing");
    expect(r.nextStep?.id).toBe(step);
    // The step quotes the exception it answers.
    expect(JSON.stringify(r.nextStep)).toContain(root.slice(0, root.indexOf(":")));
    expect(reportViolations(r, failingWith(wrapped(40 * MIN, root)))).toEqual([]);
  });

  it("is not chosen when the newest failure since the last success is a conflict", () => {
    const r = report(
      failingWith(
        wrapped(
          40 * MIN,
          "org.apache.iceberg.exceptions.NotAuthorizedException: Not authorized: Token expired",
        ),
        wrapped(
          10 * MIN,
          "org.apache.iceberg.exceptions.CommitFailedException: Commit failed: branch main has changed",
        ),
      ),
    );
    expect(r.verdict).toBe("commit-conflict");
    expect(ids(r)).not.toContain("commit-error");
  });

  it("on Connect: a task failed for another reason is a commit-error, not a stopped coordinator", () => {
    const ev = evidence({
      table: table({ snapshots: series(6 * HOUR, 40 * MIN, 5 * MIN, { by: { connect: "events-sink" } }) }),
      connect: connect({
        taskState: "FAILED",
        sinkVersion: "1.12.0",
        trace: taskTrace("org.apache.iceberg.exceptions.ForbiddenException: Forbidden: Invalid Token"),
      }),
    });
    const r = report(ev);
    expect(r.verdict).toBe("commit-error");
    expect(ids(r)).not.toContain("connect-coordinator-stopped");
    expect(r.nextStep?.id).toBe("renew-catalog-credential");
    expect(r.findings[0]!.quote).toMatchObject({ source: "connect", where: "task 0", count: 1 });
    expect(r.findings[0]!.quote?.firstSeen).toBeUndefined();
  });

  it("each cause selects its own step, after verify-unknown-commit and before the coordinator restart", () => {
    const f = (
      id: "commit-error" | "connect-coordinator-stopped" | "commit-state-unknown",
      cause?: "auth" | "resources",
    ) => ({
      id,
      severity: "critical" as const,
      ...(cause ? { cause } : {}),
    });
    expect(
      chooseStep(PLAYBOOKS, [f("connect-coordinator-stopped"), f("commit-error", "auth")])?.step.id,
    ).toBe("renew-catalog-credential");
    expect(chooseStep(PLAYBOOKS, [f("commit-error", "resources")])?.step.id).toBe("raise-writer-memory");
    expect(chooseStep(PLAYBOOKS, [f("commit-error", "auth"), f("commit-state-unknown")])?.step.id).toBe(
      "verify-unknown-commit",
    );
  });
});

describe("the staleness floor", () => {
  it("is three intervals and never under five minutes", () => {
    expect(staleAfter(5 * SEC)).toBe(5 * MIN);
    expect(staleAfter(90 * SEC)).toBe(5 * MIN);
    expect(staleAfter(10 * MIN)).toBe(30 * MIN);
  });

  it("a writer checkpointing every few seconds is not failing when one commit is late", () => {
    const job = flinkJob({ intervalMs: 5 * SEC, latestCompletedAgo: 2 * SEC, elapsedSeconds: 40 });
    const r = report(evidence({ table: table({ snapshots: series(HOUR, 40 * SEC, 5 * SEC) }), flink: job }));
    expect(r.verdict).toBe("healthy");
    expect(ids(r)).not.toContain("commit-failing");
  });
});

describe("writer-never-committed", () => {
  it("an empty table and a running job: the first commit never landed, nothing was expired", () => {
    const r = report(
      evidence({ table: table({ snapshots: [] }), flink: flinkJob({ startedAgo: 2 * HOUR }) }),
    );
    expect(r.verdict).toBe("writer-never-committed");
    const text = JSON.stringify(r);
    expect(text).not.toMatch(/\(expired\)|(?<!nothing )was expired|before the retained history/);
    expect(text).toContain("nothing was expired or lost");
    expect(ids(r)).not.toContain("writer-last-snapshot-at-risk");
    expect(r.nextStep).toBeNull();
    expect(r.noStepReason).toMatch(/never committed/);
  });

  it("a job that only just started still has its first stale period", () => {
    const r = report(evidence({ table: table({ snapshots: [] }), flink: flinkJob({ startedAgo: 2 * MIN }) }));
    // At most a note saying when the first commit is due: never the verdict, never critical.
    expect(r.verdict).toBe("healthy");
    const note = r.findings.find((f) => f.id === "writer-never-committed");
    expect(note?.severity).toBe("info");
    expect(note?.summary).toMatch(/first commit is expected by \d{4}-\d\d-\d\dT/);
  });

  it("is not claimed when the snapshot log names snapshots that were expired", () => {
    const t = table({
      snapshots: series(3 * HOUR, HOUR, 10 * MIN, { by: { spark: "application_1700000000000_0001" } }),
    });
    t.snapshotLog = [{ snapshotId: "123", timestampMs: NOW - 2 * DAY }, ...t.snapshotLog];
    const r = report(evidence({ table: t, flink: flinkJob({ startedAgo: 3 * DAY }) }));
    expect(ids(r)).not.toContain("writer-never-committed");
    expect(ids(r)).toContain("writer-last-snapshot-at-risk");
  });

  it("finds expired ids wherever the log names them, in log order, and the oldest snapshot's parent", () => {
    const t = table({ snapshots: series(3 * HOUR, HOUR, 10 * MIN) });
    const held = t.snapshotLog.map((e) => e.snapshotId);
    expect(expiryEvidence(t).expiredIds).toEqual([]);
    // A rollback names a held snapshot again, out of order; two expired ones sit among the rest.
    t.snapshotLog = [
      { snapshotId: "111", timestampMs: NOW - 2 * DAY },
      ...t.snapshotLog.slice(0, 3),
      { snapshotId: held[0] ?? "", timestampMs: NOW - 2 * HOUR },
      { snapshotId: "222", timestampMs: NOW - 2 * HOUR },
      ...t.snapshotLog.slice(3),
    ];
    expect(expiryEvidence(t).expiredIds).toEqual(["111", "222"]);
    const first = t.snapshots[0];
    if (first) first.parentSnapshotId = "333";
    expect(expiryEvidence(t).expiredIds).toEqual(["111", "222", "333"]);
    t.snapshotLog = t.snapshots.map((s) => ({ snapshotId: s.snapshotId, timestampMs: s.timestampMs }));
    expect(expiryEvidence(t).expiredIds).toEqual(["333"]);
    if (first) first.parentSnapshotId = t.snapshots[1]?.snapshotId;
    expect(expiryEvidence(t).expiredIds).toEqual([]);
  });
});

describe("writer-idle", () => {
  it("quiet hours that recur on earlier days: healthy, with when commits are expected again", () => {
    const snapshots = [
      ...series(80 * HOUR, 74 * HOUR, 5 * MIN),
      ...series(68 * HOUR, 50 * HOUR, 5 * MIN),
      ...series(44 * HOUR, 26 * HOUR, 5 * MIN),
      ...series(20 * HOUR, 2 * HOUR, 5 * MIN),
    ];
    const ev = evidence({ table: table({ snapshots }), flink: flinkJob() });
    const r = report(ev);
    expect(r.verdict).toBe("healthy");
    const idle = r.findings.find((f) => f.id === "writer-idle");
    expect(idle?.severity).toBe("info");
    expect(idle?.summary).toContain(new Date(NOW + 4 * HOUR).toISOString());
    expect(r.findings.filter((f) => f.severity === "critical")).toEqual([]);
    expect(reportViolations(r, ev)).toEqual([]);
  });

  it("the same silence without the daily pattern is a failure", () => {
    const r = report(
      evidence({ table: table({ snapshots: series(80 * HOUR, 2 * HOUR, 5 * MIN) }), flink: flinkJob() }),
    );
    expect(r.verdict).not.toBe("healthy");
    expect(ids(r)).not.toContain("writer-idle");
  });

  it("idle input with empty commits switched off", () => {
    const job = { ...flinkJob(), sourceRecordsPerSecond: 0 };
    const t = table({
      snapshots: series(20 * HOUR, 3 * HOUR, 5 * MIN),
      properties: { "flink.max-continuous-empty-commits": "2147483647" },
    });
    const r = report(evidence({ table: t, flink: job }));
    expect(r.verdict).toBe("healthy");
    expect(r.findings.find((f) => f.id === "writer-idle")?.summary).toMatch(/empty commits are switched off/);
    // With the default of 10, an idle writer still commits every 10 checkpoints: 3 h is too long.
    const r10 = report(
      evidence({ table: table({ snapshots: series(20 * HOUR, 3 * HOUR, 5 * MIN) }), flink: job }),
    );
    expect(r10.verdict).not.toBe("healthy");
  });

  it("a Connect sink whose consumer lag is 0", () => {
    const lag = Array.from({ length: 12 }, (_, i) => ({
      atMs: NOW - (11 - i) * 5 * MIN,
      value: i < 4 ? 300 : 0,
    }));
    const ev = evidence({
      table: table({ snapshots: series(8 * HOUR, 90 * MIN, 5 * MIN, { by: { connect: "events-sink" } }) }),
      connect: connect(),
      prometheus: { connectSinkLag: lag },
    });
    expect(report(ev).verdict).toBe("healthy");
    const busy = {
      ...ev,
      prometheus: { series: { connectSinkLag: lag.map((p) => ({ ...p, value: 900 })) } },
    };
    expect(report(busy).verdict).not.toBe("healthy");
  });

  it("the invariant catches an exception-caused triage finding without its quote", () => {
    const ev = failingWith(
      wrapped(
        10 * MIN,
        "org.apache.iceberg.exceptions.CommitFailedException: Commit failed: branch main has changed",
      ),
    );
    const r = report(ev);
    expect(r.findings.find((f) => f.id === "commit-conflict")?.quote?.count).toBe(1);
    const stripped: Report = { ...r, findings: r.findings.map(({ quote: _quote, ...f }) => f) };
    expect(reportViolations(stripped, ev)).toContain("finding commit-conflict does not quote its exception");
  });

  it("the invariant catches a critical finding next to writer-idle", () => {
    const ev = evidence({ table: table({ snapshots: series(HOUR, 2 * MIN, 5 * MIN) }), flink: flinkJob() });
    const broken: Report = {
      ...report(ev),
      findings: [
        {
          id: "writer-idle",
          severity: "info",
          summary: "quiet",
          evidence: [{ source: "catalog", detail: "a", data: {} }],
        },
        {
          id: "commit-duration-growing",
          severity: "critical",
          summary: "x",
          evidence: [{ source: "flink", detail: "b", data: {} }],
        },
      ],
    };
    expect(reportViolations(broken, ev)).toContain(
      "critical finding commit-duration-growing for a writer-idle writer",
    );
  });
});

describe("committers-inside-job", () => {
  it("several commits per checkpoint from one job", () => {
    const snapshots = [0, 20, 40].flatMap((offset) =>
      series(6 * HOUR + offset * SEC, 30 * MIN + offset * SEC, 5 * MIN),
    );
    const job = flinkJob({
      exceptions: [
        {
          ago: 10 * MIN,
          name: "org.apache.iceberg.exceptions.CommitFailedException",
          message: "Commit failed: branch main has changed",
        },
      ],
    });
    const r = report(evidence({ table: table({ snapshots }), flink: job }));
    expect(ids(r)).toContain("committers-inside-job");
    expect(r.nextStep?.id).toBe("one-committer-per-table");
  });

  it("unattributed bursts aligned with the job's checkpoints; no claim that anything was expired", () => {
    const anonymous = [0, 1, 2, 3].flatMap((offset) =>
      series(2 * HOUR + offset * SEC, 10 * MIN + offset * SEC, 5 * MIN, { by: { anonymous: true } }),
    );
    const job = flinkJob({
      startedAgo: 3 * DAY,
      exceptions: [
        {
          ago: 4 * MIN,
          name: "org.apache.iceberg.exceptions.CommitFailedException",
          message: "Commit failed: branch main has changed",
        },
      ],
    });
    const r = report(evidence({ table: table({ snapshots: anonymous }), flink: job }));
    expect(r.verdict).toBe("commit-conflict");
    expect(ids(r)).toContain("committers-inside-job");
    expect(ids(r)).not.toContain("writer-last-snapshot-at-risk");
    expect(ids(r)).not.toContain("writer-never-committed");
    expect(JSON.stringify(r)).not.toMatch(/was expired|\(expired\)/);
    expect(r.nextStep?.id).toBe("one-committer-per-table");
  });

  it("unattributed commits at random times are not a job's committers", () => {
    const scattered = [7, 19, 44, 71, 95, 133].map((m) =>
      snap(m * MIN + 17 * SEC, { by: { anonymous: true } }),
    );
    const r = report(
      evidence({
        table: table({ snapshots: [...series(6 * HOUR, 45 * MIN, 5 * MIN), ...scattered] }),
        flink: flinkJob(),
      }),
    );
    expect(ids(r)).not.toContain("committers-inside-job");
  });
});

describe("the bot's own access to the catalog", () => {
  const refused = (ev: Evidence, status: number): Evidence => ({
    ...ev,
    sources: {
      ...ev.sources,
      catalog: {
        status: "unavailable",
        httpStatus: status,
        errorCode: "auth_failed",
        error: `Iceberg REST catalog answered HTTP ${status} to GET /v1/config: Not authorized`,
      },
    },
    catalog: undefined,
  });

  it("a 403 to the bot while Flink shows the writer committing: healthy, saying first why the catalog was not read", () => {
    const ev = refused(
      evidence({
        table: table({ snapshots: series(HOUR, 2 * MIN, 5 * MIN) }),
        flink: flinkJob({ elapsedSeconds: 120 }),
      }),
      403,
    );
    const r = report(ev);
    expect(r.verdict).toBe("healthy");
    expect(r.findings.find((f) => f.id === "healthy")!.evidence[0]!.detail).toMatch(
      /refused the bot's credential/,
    );
    expect(r.sources.catalog.httpStatus).toBe(403);
    expect(reportViolations(r, ev)).toEqual([]);
  });

  it("a 401 to the bot with nothing else to go on: not healthy, no finding or step on the writer", () => {
    const ev = refused(
      evidence({ table: table({ snapshots: series(HOUR, 2 * MIN, 5 * MIN) }), connect: connect() }),
      401,
    );
    const r = report(ev);
    expect(r.verdict).not.toBe("healthy");
    expect(ids(r)).not.toContain("commit-error");
    expect(r.nextStep).toBeNull();
    expect(r.noStepReason).toMatch(/bot's own credential/);
    expect(reportViolations(r, ev)).toEqual([]);
  });
});

describe("unknown commits across restarts", () => {
  const UNKNOWN =
    "Service failed: 504: Gateway timed out during commit\nCannot determine whether the commit was successful or not, the underlying data files may or may not be needed.";

  it("a commit the report already answered leads to the next step, not verify-unknown-commit", () => {
    const job = flinkJob({
      exceptions: [
        {
          ago: 38 * MIN,
          name: "org.apache.iceberg.exceptions.CommitStateUnknownException",
          message: UNKNOWN,
        },
      ],
    });
    const landed = [...series(6 * HOUR, 43 * MIN, 5 * MIN), snap(37 * MIN)];
    const r = report(evidence({ table: table({ snapshots: landed }), flink: job }));
    const f = r.findings.find((x) => x.id === "commit-state-unknown")!;
    expect(f.answered).toBe(true);
    expect(f.quote?.exception).toBe("org.apache.iceberg.exceptions.CommitStateUnknownException");
    expect(r.nextStep?.id).toBe("idempotent-restart");
    // Unanswered (nothing landed or resumed): the check comes first.
    const unanswered = report(
      evidence({ table: table({ snapshots: series(6 * HOUR, 43 * MIN, 5 * MIN) }), flink: job }),
    );
    expect(unanswered.nextStep?.id).toBe("verify-unknown-commit");
  });

  it("the writer's snapshots under a new job id count by the committer's operator id", () => {
    const op = { "flink.operator-id": "9f0e8d7c6b5a49382716f5e4d3c2b1a0" };
    const before = series(6 * HOUR, 43 * MIN, 5 * MIN, { summary: op });
    const after = series(31 * MIN, MIN, 5 * MIN, { by: { flink: JOB2 }, summary: op });
    const failed = {
      ...flinkJob({
        state: "FAILED",
        exceptions: [
          {
            ago: 40 * MIN,
            name: "org.apache.iceberg.exceptions.CommitStateUnknownException",
            message: UNKNOWN,
          },
        ],
      }),
    };
    const successor = {
      ...flinkJob({ jobId: JOB2, startedAgo: 33 * MIN }),
      job: { jobId: JOB2, name: "events-ingest-v2", state: "RUNNING", startTimeMs: NOW - 33 * MIN },
    };
    const base = evidence({ table: table({ snapshots: [...before, ...after] }), flink: failed });
    const ev: Evidence = {
      ...base,
      flink: {
        jobs: [failed.job, successor.job],
        writer: successor,
        writers: [successor, failed],
        writerSource: "discovered",
      },
    };
    const r = report(ev);
    expect(r.verdict).toBe("commit-state-unknown");
    expect(ids(r)).not.toContain("multiple-flink-jobs");
    expect(r.findings[0]!.answered).toBe(true);
    // It did not land and the successor committed since: its data is to confirm, not a restart.
    expect(r.findings[0]!.answer).toBe("recommitted");
    expect(r.nextStep?.id).toBe("confirm-recommit");
    expect(JSON.stringify(r.findings[0])).toContain("committed again afterwards");
    expect(JOB).not.toBe(JOB2);
  });
});
