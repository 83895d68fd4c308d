// The stored form of a history record (record.ts): a schema every record read is checked against,
// nested fields included, so one damaged record is passed over instead of failing each diagnosis
// of its table. Loose objects and plain strings for ids: a record a newer release wrote (fields or
// finding ids added) still reads; what it added is kept and simply matches nothing here.

import { z } from "zod";
import { type IncidentHistory, STEP_OUTCOMES } from "./record.js";

const HistoryStepSchema = z.looseObject({
  stepId: z.string(),
  proposedAtMs: z.number(),
  approvedBy: z.array(z.string()),
  approvedAtMs: z.number().optional(),
  skippedBy: z.string().optional(),
  skippedAtMs: z.number().optional(),
  appliedAtMs: z.number().optional(),
  appliedBy: z.string().optional(),
  setProperties: z.record(z.string(), z.string()).optional(),
  outcome: z.enum(STEP_OUTCOMES),
  recoveredAtMs: z.number().optional(),
  recoveredAfterMs: z.number().optional(),
});

const HistoryRecordSchema = z.looseObject({
  format: z.number().int().min(1),
  incidentId: z.string().min(1),
  table: z.string().min(1),
  channel: z.string(),
  rootTs: z.string().optional(),
  state: z.enum(["resolved", "stopped"]),
  openedAtMs: z.number(),
  closedAtMs: z.number(),
  diagnosedAtMs: z.number().optional(),
  verdict: z.string(),
  findings: z.array(z.string()),
  triage: z.string().optional(),
  rootCause: z.string().optional(),
  writerKind: z.enum(["flink", "connect", "unknown"]),
  steps: z.array(HistoryStepSchema),
  fixedBy: z.string().optional(),
  recoveredAtMs: z.number().optional(),
  // Records written before open items were kept have none.
  openItems: z.array(z.string()).default([]),
});

/** A stored record, or why it cannot be read ("steps.0: …"). */
export function readHistoryRecord(
  raw: unknown,
): { ok: true; record: IncidentHistory } | { ok: false; why: string } {
  const parsed = HistoryRecordSchema.safeParse(raw);
  if (parsed.success) return { ok: true, record: parsed.data as unknown as IncidentHistory };
  const issue = parsed.error.issues[0];
  return { ok: false, why: `${issue?.path.join(".") || "record"}: ${issue?.message ?? "invalid"}` };
}
