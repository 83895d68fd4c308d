// Reads commit failures out of Flink exception history and Kafka Connect traces. Only the first
// line of the relevant exception is kept: it is what a person recognises and searches for.

import type { ConnectEvidence, FlinkException } from "../evidence/model.js";

export type FailureKind = "state-unknown" | "validation" | "commit-failed" | "coordinator-terminated";

export interface CommitFailure {
  kind: FailureKind;
  source: "flink" | "connect";
  /** When Flink recorded it; Connect traces carry no time. */
  atMs?: number;
  /** The exception line, e.g. "org.apache.iceberg.exceptions.CommitFailedException: Cannot commit: ...". */
  line: string;
  /** Flink task name or "connector"/"task 0" on Connect. */
  where?: string;
}

const MAX_LINE = 400;

const MARKERS: ReadonlyArray<{ kind: FailureKind; needles: string[] }> = [
  {
    kind: "state-unknown",
    needles: ["CommitStateUnknownException", "Cannot determine whether the commit was successful or not"],
  },
  {
    kind: "validation",
    needles: [
      "org.apache.iceberg.exceptions.ValidationException",
      "Found conflicting files",
      "Found new conflicting delete files",
      "Found conflicting deleted files",
    ],
  },
  { kind: "commit-failed", needles: ["CommitFailedException"] },
  { kind: "coordinator-terminated", needles: ["Coordinator unexpectedly terminated"] },
];

function clip(line: string): string {
  const trimmed = line.trim().replace(/^Caused by:\s*/, "");
  return trimmed.length > MAX_LINE ? `${trimmed.slice(0, MAX_LINE - 1)}…` : trimmed;
}

/** The first line of `text` that contains `needle`, trimmed. */
function lineWith(text: string, needle: string): string | undefined {
  const at = text.indexOf(needle);
  if (at < 0) return undefined;
  const start = text.lastIndexOf("\n", at) + 1;
  const end = text.indexOf("\n", at);
  return clip(text.slice(start, end < 0 ? undefined : end));
}

/** Classifies free text (a trace or an exception) by the most specific commit failure it mentions. */
export function classifyFailureText(text: string): { kind: FailureKind; line: string } | null {
  for (const marker of MARKERS) {
    for (const needle of marker.needles) {
      const line = lineWith(text, needle);
      if (line !== undefined) return { kind: marker.kind, line };
    }
  }
  return null;
}

export function classifyFlinkException(exception: FlinkException): CommitFailure | null {
  const head = `${exception.exceptionName}: ${exception.message}`;
  const found = classifyFailureText(`${head}\n${exception.stacktrace}`);
  if (!found) return null;
  return {
    kind: found.kind,
    source: "flink",
    atMs: exception.timestampMs,
    line: found.line,
    ...(exception.taskName ? { where: exception.taskName } : {}),
  };
}

/** Failures visible in the connector's and tasks' traces (present only while something is FAILED). */
export function connectFailures(connect: ConnectEvidence): CommitFailure[] {
  const out: CommitFailure[] = [];
  const traces: Array<[string, string | undefined]> = [
    ["connector", connect.connector.trace],
    ...connect.connector.tasks.map((t): [string, string | undefined] => [`task ${t.id}`, t.trace]),
  ];
  for (const [where, trace] of traces) {
    if (!trace) continue;
    const found = classifyFailureText(trace);
    if (found) out.push({ kind: found.kind, source: "connect", line: found.line, where });
  }
  return out;
}

/** The first line of a trace, for evidence when it names no commit failure. */
export function firstLine(text: string): string {
  const end = text.indexOf("\n");
  return clip(end < 0 ? text : text.slice(0, end));
}
