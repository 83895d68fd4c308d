// Reads commit failures out of Flink exception history and Kafka Connect traces, down to the root
// of each `Caused by:` chain. A conflict, an unknown state and a validation failure are recognised
// anywhere in the chain (they are what Iceberg throws, whatever wraps them); any other exception
// on the writer's commit path is a commit-error, classed by its root (RUNBOOK §3).

import { parseExceptionChain } from "../evidence/exceptions.js";
import type { ConnectEvidence, ExceptionCause, FlinkException, FlinkJobEvidence } from "../evidence/model.js";
import type { CommitErrorCause } from "../ids.js";

export type FailureKind =
  | "state-unknown"
  | "validation"
  | "commit-failed"
  | "coordinator-terminated"
  | "commit-error";

export interface CommitFailure {
  kind: FailureKind;
  source: "flink" | "connect";
  /** When Flink recorded it; Connect traces carry no time. */
  atMs?: number;
  /** The exception line, e.g. "org.apache.iceberg.exceptions.CommitFailedException: Cannot commit: ...". */
  line: string;
  /** Flink task name or "connector"/"task 0" on Connect. */
  where?: string;
  /** The root of the `Caused by:` chain (the line's own exception when there is no chain). */
  root: ExceptionCause;
  /** The outermost exception, when it is not the root. */
  thrownAs?: string;
  /** commit-error only. */
  cause?: CommitErrorCause;
}

const MAX_LINE = 400;

const MARKERS: ReadonlyArray<{ kind: Exclude<FailureKind, "commit-error">; needles: string[] }> = [
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

/** Checkpoint failures: the commit never ran (commit-not-attempted), not a commit error. */
const CHECKPOINT_FAILURE =
  /CheckpointException|checkpoint tolerable failure threshold|Checkpoint expired before completing|Checkpoint was declined/i;
/** A snapshot or manifest gone on restore (a manifest list, manifest or metadata file): keep-writer-last-snapshot, not a commit error. */
export const MISSING_ON_RESTORE = /NotFoundException[\s\S]*?(\.avro|metadata\.json|\/metadata\/|manifest)/i;
/** Where a Flink exception was thrown on the commit path: the committer or sink task, or Iceberg's code. */
const COMMIT_TASK = /committer|IcebergSink|Sink:|Writer/i;
const ICEBERG_FRAME = /\bat org\.apache\.iceberg\./;

const AUTH =
  /NotAuthorizedException|ForbiddenException|NotAuthorized|AccessDenied|\bHTTP 40[13]\b|\b40[13] (Unauthorized|Forbidden)\b|invalid_token|invalid_client|token (has )?expired/i;
const UNAVAILABLE =
  /ServiceUnavailableException|ServerErrorException|ServiceFailureException|SocketTimeoutException|ConnectTimeoutException|HttpHostConnectException|NoHttpResponseException|java\.net\.ConnectException|Service failed: 5\d\d|\bHTTP 5\d\d\b|\b50[0234] (Internal|Bad Gateway|Service Unavailable|Gateway Time)|Read timed out|Connect timed out/i;
const RESOURCES = /OutOfMemoryError|GC overhead limit exceeded|Java heap space|Direct buffer memory/;

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

function causeLine(c: ExceptionCause): string {
  return clip(c.message ? `${c.className}: ${c.message}` : c.className);
}

/** What a commit-error's chain says went wrong: the root first, then the layers above it. */
export function classifyErrorCause(chain: readonly ExceptionCause[]): CommitErrorCause {
  const layers = [...chain].reverse().map(causeLine);
  if (layers.some((l) => RESOURCES.test(l))) return "resources";
  if (layers.some((l) => AUTH.test(l))) return "auth";
  if (layers.some((l) => UNAVAILABLE.test(l))) return "unavailable";
  return "writer-error";
}

/** The conflict, unknown state or validation failure a text mentions, most specific first. */
function classifyFailureText(
  text: string,
): { kind: Exclude<FailureKind, "commit-error">; line: string } | null {
  for (const marker of MARKERS) {
    for (const needle of marker.needles) {
      const line = lineWith(text, needle);
      if (line !== undefined) return { kind: marker.kind, line };
    }
  }
  return null;
}

function headOf(line: string): ExceptionCause {
  const colon = line.indexOf(": ");
  return colon > 0
    ? { className: line.slice(0, colon), message: line.slice(colon + 2) }
    : { className: line, message: "" };
}

/**
 * One failure from a trace and its chain. A marked failure quotes the exception that names it;
 * otherwise, when `onCommitPath`, the root is a commit-error.
 */
function fromTrace(
  text: string,
  chain: readonly ExceptionCause[],
  onCommitPath: boolean,
): Pick<CommitFailure, "kind" | "line" | "root" | "thrownAs" | "cause"> | null {
  const outer = chain[0];
  const marked = classifyFailureText(text);
  if (marked) {
    // Quote the exception that names the failure (e.g. CommitFailedException), not what it wraps.
    const named = chain.find((c) => marked.line.startsWith(c.className)) ?? headOf(marked.line);
    return {
      kind: marked.kind,
      line: marked.line,
      root: named,
      ...(outer && outer.className !== named.className ? { thrownAs: outer.className } : {}),
    };
  }
  if (!onCommitPath || chain.length === 0) return null;
  const all = chain.map(causeLine).join("\n");
  if (CHECKPOINT_FAILURE.test(all) || MISSING_ON_RESTORE.test(all)) return null;
  // The root is the last cause.
  const root = chain[chain.length - 1]!;
  return {
    kind: "commit-error",
    line: causeLine(root),
    root,
    ...(outer && outer !== root ? { thrownAs: outer.className } : {}),
    cause: classifyErrorCause(chain),
  };
}

function flinkChain(exception: FlinkException): ExceptionCause[] {
  if (exception.causes && exception.causes.length > 0) return exception.causes;
  const parsed = parseExceptionChain(exception.stacktrace);
  return parsed.length > 0 ? parsed : [{ className: exception.exceptionName, message: exception.message }];
}

/** `read` once per object: each exception is read once per evidence, however many writers and checks look at it. */
function readOnce<K extends object, V>(read: (key: K) => V): (key: K) => V {
  const seen = new WeakMap<K, V>();
  return (key) => {
    if (seen.has(key)) return seen.get(key)!;
    const value = read(key);
    seen.set(key, value);
    return value;
  };
}

export const classifyFlinkException = readOnce(readFlinkException);

/**
 * A Flink job's commit failures that still matter after its last commit. An unknown commit stays
 * relevant until someone checks it: later commits do not tell whether the in-flight one landed or
 * was committed twice. Any other failure matters only if nothing succeeded after it.
 */
export function flinkFailuresSince(job: FlinkJobEvidence, lastCommitMs: number | undefined): CommitFailure[] {
  const out: CommitFailure[] = [];
  for (const exception of job.exceptions) {
    const failure = classifyFlinkException(exception);
    if (!failure) continue;
    if (
      lastCommitMs === undefined ||
      failure.kind === "state-unknown" ||
      exception.timestampMs > lastCommitMs
    )
      out.push(failure);
  }
  return out;
}

/** Newest first, so rules quote the latest line. */
export function newestFirst(failures: CommitFailure[]): CommitFailure[] {
  return failures.sort((a, b) => (b.atMs ?? 0) - (a.atMs ?? 0));
}

function readFlinkException(exception: FlinkException): CommitFailure | null {
  const head = `${exception.exceptionName}: ${exception.message}`;
  const text = `${head}\n${exception.stacktrace}`;
  const chain = flinkChain(exception);
  const onCommitPath =
    COMMIT_TASK.test(exception.taskName ?? "") ||
    ICEBERG_FRAME.test(exception.stacktrace) ||
    chain.some((c) => c.className.startsWith("org.apache.iceberg.") || RESOURCES.test(c.className));
  const found = fromTrace(text, chain, onCommitPath);
  if (!found) return null;
  return {
    ...found,
    source: "flink",
    atMs: exception.timestampMs,
    ...(exception.taskName ? { where: exception.taskName } : {}),
  };
}

const connectorFailures = readOnce(readConnectorFailures);

/**
 * Failures visible in the connector's and tasks' traces (present only while something is FAILED).
 * The tasks are the writer, so whatever failed one is on its commit path.
 */
export function connectFailures(connect: ConnectEvidence): CommitFailure[] {
  return connectorFailures(connect.connector);
}

function readConnectorFailures(connector: ConnectEvidence["connector"]): CommitFailure[] {
  const out: CommitFailure[] = [];
  const parts: Array<[string, string | undefined, ExceptionCause[] | undefined]> = [
    ["connector", connector.trace, connector.causes],
    ...connector.tasks.map((t): [string, string | undefined, ExceptionCause[] | undefined] => [
      `task ${t.id}`,
      t.trace,
      t.causes,
    ]),
  ];
  for (const [where, trace, causes] of parts) {
    if (!trace) continue;
    const chain = causes && causes.length > 0 ? causes : parseExceptionChain(trace);
    const found = fromTrace(trace, chain, true);
    if (found) out.push({ ...found, source: "connect", where });
  }
  return out;
}

/** The first line of a trace, for evidence when it names no commit failure. */
export function firstLine(text: string): string {
  const end = text.indexOf("\n");
  return clip(end < 0 ? text : text.slice(0, end));
}
