// The stored form of a remediation record: a format number, a schema every record read is checked
// against, and the migration from the previous format. A release reads its own format and the one
// before it (docs/operations.md, Upgrading and rolling back); a record that fails the schema is
// an error naming the incident, never a half-read walk.

import { z } from "zod";
import { CodedError, ErrorCode } from "../../errors.js";
import { STEP_IDS } from "../ids.js";
import { ChangeSchema } from "../report/schema.js";
import type { RemediationRecord } from "./record.js";
import { APPLY_FAILURES, STEP_PHASES, WALK_STATUSES } from "./walk.js";

/** Format 2 adds `format` to the record; format 1 (no field) is what 0.1.0 wrote. */
export const WALK_FORMAT = 2;

const StepId = z.enum(STEP_IDS);
const Phase = z.enum(STEP_PHASES);
const Values = z.record(z.string(), z.string().nullable());

const StepRunSchema = z.looseObject({
  stepId: StepId,
  phase: Phase,
  change: ChangeSchema,
  target: z
    .looseObject({ uuid: z.string().optional(), metadataLocation: z.string().optional(), values: Values })
    .optional(),
  requestedBy: z.string().optional(),
  proposedAtMs: z.number(),
  approvals: z.array(
    z.looseObject({
      user: z.string(),
      reason: z.string().optional(),
      confirmations: z.array(z.string()),
      atMs: z.number(),
    }),
  ),
  appliedAtMs: z.number().optional(),
  changeAtMs: z.number().optional(),
  appliedBy: z.string().optional(),
  previous: Values.optional(),
  checksDone: z.number().int().min(0),
  checksTotal: z.number().int().min(0),
  intervalMs: z.number().min(0),
  verifyEndsAtMs: z.number().optional(),
  checks: z.array(
    z.looseObject({
      index: z.number(),
      atMs: z.number(),
      recovered: z.boolean(),
      // Optional: records written before it read by `recovered` (checkOutcome).
      outcome: z.enum(["recovered", "not-yet", "could-not-check"]).optional(),
      detail: z.string(),
      unseen: z.array(z.looseObject({ source: z.string(), reason: z.string() })).optional(),
    }),
  ),
  failure: z
    .looseObject({ outcome: z.enum(APPLY_FAILURES), message: z.string(), atMs: z.number() })
    .optional(),
  beforeRevert: Phase.optional(),
  skippedBy: z.string().optional(),
  endedAtMs: z.number().optional(),
});

// Loose objects: a record written by the next release (fields added) still reads after a rollback.
const RemediationRecordSchema = z.looseObject({
  format: z.literal(WALK_FORMAT),
  incidentId: z.string().min(1),
  table: z.string().min(1),
  channel: z.string(),
  walk: z.looseObject({
    table: z.string(),
    playbookId: z.string(),
    status: z.enum(WALK_STATUSES),
    startedAtMs: z.number(),
    current: StepRunSchema.optional(),
    history: z.array(StepRunSchema),
    endedAtMs: z.number().optional(),
  }),
  proposals: z.array(z.looseObject({ id: z.string(), stepId: StepId, atMs: z.number() })),
  applySeq: z.number().int().min(0),
  revertSeq: z.number().int().min(0),
  proposedForDiagnosis: z.number().optional(),
  writer: z
    .looseObject({
      kind: z.enum(["flink-job", "connector"]),
      id: z.string(),
      name: z.string().optional(),
      operatorId: z.string().optional(),
      failedAtMs: z.number().optional(),
      cluster: z.string().optional(),
    })
    .optional(),
  recoveredAtMs: z.number().optional(),
  // Optional (added in format 2): a record without it reads by recoveredAtMs.
  recovery: z
    .looseObject({
      atMs: z.number(),
      changeAtMs: z.number(),
      credit: z.enum(["fixed", "already-flowing"]),
      stepId: StepId,
    })
    .optional(),
  memory: z
    .looseObject({ earlierIncidentId: z.string(), fixedBy: StepId.optional(), didNotHelp: z.array(StepId) })
    .optional(),
  openItems: z
    .array(
      z.looseObject({
        id: z.string(),
        text: z.string(),
        statement: z.string().optional(),
        resolvedBy: StepId.optional(),
        doneBy: z.string().optional(),
        doneAtMs: z.number().optional(),
      }),
    )
    .optional(),
});

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
  return { ...(parsed.data as unknown as RemediationRecord), format: Math.max(format, WALK_FORMAT) };
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
