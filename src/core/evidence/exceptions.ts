// Java stack traces as text (Flink's exception history, a Kafka Connect task's `trace`) read into
// their `Caused by:` chain. The root, the last cause, is what names the failure: a Connect task
// always fails as "ConnectException: Exiting WorkerSinkTask", a Flink job as "JobException", and
// only the root says "NotAuthorizedException: ..." or "OutOfMemoryError: Java heap space".

import type { ExceptionCause } from "./model.js";

const MAX_MESSAGE = 400;
/** "pkg.Class: message", "pkg.Outer$Inner", "Caused by: pkg.Class: message". */
const HEAD = /^(?:Caused by:\s*)?((?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*)(?::\s?(.*))?$/;
const FRAME = /^\s*(at\s|\.\.\.\s*\d+\s+more|Suppressed:|\[CIRCULAR)/;

function clip(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > MAX_MESSAGE ? `${trimmed.slice(0, MAX_MESSAGE - 1)}…` : trimmed;
}

/** The chain of a stack trace, outermost first; empty when the text holds no exception line. */
export function parseExceptionChain(text: string): ExceptionCause[] {
  const out: ExceptionCause[] = [];
  const lines = text.split(/\r?\n/);
  let expectHead = true;
  let suppressed = false;
  for (const raw of lines) {
    const line = raw.trimEnd();
    if (line.trim() === "") continue;
    if (/^\s+Suppressed:/.test(line)) {
      suppressed = true;
      continue;
    }
    const causedBy = /^\s*Caused by:/.test(line);
    if (causedBy && /^\s+/.test(line) && suppressed) continue; // a cause of a suppressed one
    if (causedBy) {
      suppressed = false;
      expectHead = true;
    }
    if (FRAME.test(line)) {
      expectHead = false;
      continue;
    }
    if (!expectHead) continue;
    const match = HEAD.exec(line.trim());
    if (!match) {
      // A message that runs over several lines: keep its first line only.
      expectHead = false;
      continue;
    }
    out.push({ className: match[1]!, message: clip(match[2] ?? "") });
    expectHead = false;
  }
  return out;
}

/** "NotAuthorizedException" for "org.apache.iceberg.exceptions.NotAuthorizedException". */
export function simpleClassName(className: string): string {
  return className.slice(className.lastIndexOf(".") + 1);
}
