// Checks every table report passes through, diagnosis and audit alike: some source answered, and
// the report matches its public schema. Apart from the diagnosis, so an audit loads no rules.

import type { z } from "zod";
import type { Evidence } from "../core/evidence/model.js";
import { SOURCE_NAMES } from "../core/ids.js";
import { CodedError, ErrorCode } from "../errors.js";

/** investigate() already refuses to return nothing; this keeps the exit-code contract even if it did. */
export function requireSomeEvidence(evidence: Evidence): void {
  if (SOURCE_NAMES.some((name) => evidence.sources[name]?.status === "ok")) return;
  const reasons = SOURCE_NAMES.map((name) => {
    const source = evidence.sources[name];
    return `${name}: ${source?.status === "unavailable" ? (source.error ?? "did not answer") : "not configured"}`;
  });
  throw new CodedError(ErrorCode.NoEvidence, `No evidence source answered (${reasons.join("; ")}).`, {
    hint: "Check that the catalog, Flink and Kafka Connect URLs are right and reachable from here.",
    details: { sources: evidence.sources },
  });
}

/** Parses a report with its public schema; a failure is our bug, reported with the offending paths. */
export function validateReport<T>(schema: z.ZodType<T>, report: unknown, what: string): T {
  const result = schema.safeParse(report);
  if (result.success) return result.data;
  const paths = result.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
  throw new CodedError(
    ErrorCode.Internal,
    `The ${what} report does not match its schema: ${paths.join("; ")}`,
    {
      hint: "This is a bug in iceberg-bot; please report it with the table's scenario or evidence.",
      details: { issues: paths },
    },
  );
}
