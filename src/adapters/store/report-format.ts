// The stored form of a diagnosis report and of its commit timeline (the reports hash, one field
// each): an envelope with a format number around the value. The report's own `reportVersion` is
// its public JSON contract and does not change with the envelope. Format 1 (what 0.1.0 wrote) is
// the bare value; it is read as it is. A release reads its own format and the one before it, and a
// newer envelope when it still holds the value (docs/operations.md, Upgrading and rolling back).

import { CodedError, ErrorCode } from "../../errors.js";

/** Format 2 wraps the value: `{"format":2,"report":…}` or `{"format":2,"chart":…}`. */
export const REPORT_FORMAT = 2;

/** What to do about a record this release cannot read: written by a newer release, or by none. */
const UNREADABLE_HINTS = {
  newer:
    "It was written by a newer iceberg-bot: upgrade this one to that release (docs/operations.md, Upgrading and rolling back).",
  other:
    "It was written by an iceberg-bot this release cannot read (docs/operations.md, Upgrading and rolling back).",
};

/** The coded error of a stored record this release cannot read; `details` says `newer: true` when it is. */
export function storedRecordInvalid(
  message: string,
  newer: boolean,
  details: Record<string, unknown>,
  hints = UNREADABLE_HINTS,
): CodedError {
  return new CodedError(ErrorCode.StoredRecordInvalid, message, {
    hint: newer ? hints.newer : hints.other,
    details: { ...details, ...(newer ? { newer: true } : {}) },
  });
}

export type StoredPart = "report" | "chart";

export function writeStoredPart(part: StoredPart, value: unknown): string {
  return JSON.stringify({ format: REPORT_FORMAT, [part]: value });
}

/** The value a stored field holds, migrated from format 1; a coded error naming the key and field otherwise. */
export function readStoredPart(raw: string, part: StoredPart, key: string, field: string): unknown {
  const fail = (why: string, newer = false): never => {
    throw storedRecordInvalid(`The stored ${part} ${field} of ${key} cannot be read: ${why}`, newer, {
      key,
      field,
    });
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return fail("not JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return fail("not an object");
  const record = parsed as Record<string, unknown>;
  // Format 1: the bare report or chart, no envelope.
  if (!("format" in record)) return record;
  const format = record.format;
  if (typeof format !== "number" || !Number.isInteger(format) || format < REPORT_FORMAT)
    return fail(`format ${JSON.stringify(format)}`);
  const value = record[part];
  if (typeof value !== "object" || value === null)
    return fail(
      format > REPORT_FORMAT ? `format ${format} is newer than ${REPORT_FORMAT}` : `no ${part} in it`,
      format > REPORT_FORMAT,
    );
  return value;
}
