// Flink's exception history (or, on old versions, the lone root exception) as FlinkException
// entries, newest first, with the class name and the message split apart.

import type { z } from "zod";
import { parseExceptionChain } from "../../../core/evidence/exceptions.js";
import type { FlinkException } from "../../../core/evidence/model.js";
import type { JobExceptionsSchema } from "./schemas.js";

export function toExceptions(raw: z.output<typeof JobExceptionsSchema>): FlinkException[] {
  const entries = raw.exceptionHistory?.entries ?? [];
  if (entries.length > 0) {
    return entries
      .map((entry) => toException(entry.stacktrace, entry.timestamp, entry.exceptionName, entry.taskName))
      .sort((a, b) => b.timestampMs - a.timestampMs);
  }
  const root = raw["root-exception"];
  return root ? [toException(root, raw.timestamp ?? 0, undefined, undefined)] : [];
}

function toException(
  stacktrace: string,
  timestampMs: number,
  exceptionName: string | null | undefined,
  taskName: string | null | undefined,
): FlinkException {
  const firstLine = stacktrace.split(/\r?\n/)[0]?.trim() ?? "";
  const name = exceptionName || /^[\w.$]+/.exec(firstLine)?.[0] || "unknown";
  // The first line reads "<class>: <message>"; keep only the message part.
  const message = firstLine.startsWith(`${name}:`)
    ? firstLine.slice(name.length + 1).trim()
    : firstLine === name
      ? ""
      : firstLine;
  const causes = parseExceptionChain(stacktrace);
  return {
    timestampMs,
    exceptionName: name,
    message,
    stacktrace,
    taskName: taskName ?? undefined,
    ...(causes.length > 0 ? { causes } : {}),
  };
}
