// The stored form of a remediation record: a format number, the check of every record read against
// its schema (record.ts), and the migration from the previous format. A release reads its own
// format and the one before it (docs/operations.md, Upgrading and rolling back); a record that
// fails the schema is an error naming the incident, never a half-read walk.

import { CodedError, ErrorCode } from "../../errors.js";
import { type RemediationRecord, RemediationRecordSchema } from "./record.js";

/** Format 2 adds `format` to the record; format 1 (no field) is what 0.1.0 wrote. */
export const WALK_FORMAT = 2;

/** Format 1 → 2: the format field (and zero counters, should a record lack them). */
function fromFormat1(raw: Record<string, unknown>): Record<string, unknown> {
  return { applySeq: 0, revertSeq: 0, proposals: [], ...raw, format: 2 };
}

/**
 * A stored remediation record as this release uses it: migrated from the previous format when it is
 * one, validated whatever its format. Throws a coded error naming the incident otherwise.
 */
export function readRemediationRecord(raw: unknown, incidentId: string): RemediationRecord {
  const fail = (why: string): never => {
    throw recordRefused(`The stored walk of ${incidentId} cannot be read: ${why}`, incidentId, newer);
  };
  let newer = false;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return fail("not an object");
  const record = raw as Record<string, unknown>;
  const format = record.format ?? 1;
  if (typeof format !== "number" || !Number.isInteger(format)) return fail(`format ${String(format)}`);
  newer = format > WALK_FORMAT;
  if (format < WALK_FORMAT - 1)
    return fail(`format ${format} is older than the previous one (${WALK_FORMAT - 1})`);
  // A newer format is read when it validates as ours (fields added); its own number is kept.
  const current = format === WALK_FORMAT - 1 ? fromFormat1(record) : { ...record, format: WALK_FORMAT };
  const parsed = RemediationRecordSchema.safeParse(current);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(`${issue?.path.join(".") || "record"}: ${issue?.message ?? "invalid"}`);
  }
  return { ...(parsed.data as RemediationRecord), format: Math.max(format, WALK_FORMAT) };
}

/**
 * Whether this release may write a walk back: never one a newer release stored, which would lose
 * what that release added under an older format number. Throws the coded error that says so.
 */
export function assertWritable(record: RemediationRecord): void {
  const format = record.format ?? WALK_FORMAT;
  if (format > WALK_FORMAT)
    throw recordRefused(
      `The stored walk of ${record.incidentId} is of format ${format}, newer than this release's ${WALK_FORMAT}: it is left as it is`,
      record.incidentId,
      true,
    );
}

function recordRefused(message: string, incidentId: string, newer: boolean): CodedError {
  return new CodedError(ErrorCode.StoredRecordInvalid, message, {
    hint: newer
      ? "It was written by a newer iceberg-bot: upgrade this one to that release (docs/operations.md, Upgrading and rolling back)."
      : "It was written by an iceberg-bot this release cannot read (docs/operations.md, Upgrading and rolling back).",
    details: { incidentId, ...(newer ? { newer: true } : {}) },
  });
}
