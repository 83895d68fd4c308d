// The per-table audit trail: one Redis stream per table (XADD), appended for every proposal,
// approval, refusal, applied change, revert and verification result. /iceberg history reads it.
// It uses the stream the incident store names, so both sides read and write the same trail.

import { STEP_IDS, type StepId } from "../../core/ids.js";
import type { AuditEntry } from "../../core/remediation/walk.js";
import type { AuditPort, AuditRow } from "../../services/ports.js";
import type { RedisClient } from "../redis/connection.js";
import { runScript } from "../redis/scripts.js";
import type { Keys } from "./keys.js";

const MAX_ENTRIES = 10_000;

/** The words the history shows for each machine event. */
const VERBS: Record<AuditEntry["action"], string> = {
  propose: "proposed",
  approve: "approved",
  "apply-started": "started applying",
  "apply-succeeded": "applied",
  "apply-failed": "apply failed",
  "done-by-hand": "marked done by hand",
  skip: "skipped",
  stop: "stopped",
  check: "checked",
  "revert-requested": "asked to revert",
  reverted: "reverted",
  "item-done": "marked an open item done",
};

/** What was attempted, for refused and ignored entries ("approval refused"). */
const NOUNS: Record<AuditEntry["action"], string> = {
  propose: "proposal",
  approve: "approval",
  "apply-started": "apply",
  "apply-succeeded": "apply result",
  "apply-failed": "apply result",
  "done-by-hand": "done by hand",
  skip: "skip",
  stop: "stop",
  check: "check",
  "revert-requested": "revert",
  reverted: "revert result",
  "item-done": "open item",
};

function auditRow(entry: AuditEntry, incidentId?: string): AuditRow {
  const outcomes: Record<AuditEntry["outcome"], string> = {
    ok: VERBS[entry.action],
    refused: `${NOUNS[entry.action]} refused`,
    ignored: `${NOUNS[entry.action]} ignored`,
    failed: `${NOUNS[entry.action]} failed`,
  };
  const action = outcomes[entry.outcome];
  const row: AuditRow = {
    atMs: entry.atMs,
    actor: entry.actor,
    action,
    outcome: entry.outcome,
    detail: entry.detail,
  };
  if (entry.stepId !== undefined) row.stepId = entry.stepId;
  if (incidentId !== undefined) row.incidentId = incidentId;
  return row;
}

export class AuditTrail implements AuditPort {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    /** Days an entry is kept (BOT_CONFIG retention.auditDays). */
    private readonly retentionDays = 400,
  ) {}

  async record(table: string, entry: AuditEntry, incidentId?: string): Promise<void> {
    await this.append(table, auditRow(entry, incidentId));
  }

  async append(table: string, row: AuditRow): Promise<void> {
    const fields: string[] = [
      "at",
      String(row.atMs),
      "actor",
      row.actor,
      "action",
      row.action,
      "outcome",
      row.outcome,
      "detail",
      row.detail,
    ];
    if (row.stepId !== undefined) fields.push("stepId", row.stepId);
    if (row.incidentId !== undefined) fields.push("incident", row.incidentId);
    const keepMs = this.retentionDays * 86_400_000;
    await runScript(
      this.redis,
      "audit-append",
      [this.keys.tableAudit(table)],
      [MAX_ENTRIES, keepMs, ...fields],
    );
  }

  /** The newest `count` entries, oldest first. */
  async list(table: string, count = 200): Promise<AuditRow[]> {
    const rows = await this.redis.xrevrange(this.keys.tableAudit(table), "+", "-", "COUNT", count);
    return rows.reverse().map(([, flat]) => auditRowOf(flat));
  }
}

/** A stream entry's field-value list as the row it records. */
export function auditRowOf(flat: string[]): AuditRow {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i] as string] = flat[i + 1] as string;
  const row: AuditRow = {
    atMs: Number(f.at ?? 0),
    actor: f.actor ?? "bot",
    action: f.action ?? "note",
    outcome: (f.outcome as AuditRow["outcome"] | undefined) ?? "ok",
    detail: f.detail ?? "",
  };
  if (f.stepId !== undefined && (STEP_IDS as readonly string[]).includes(f.stepId))
    row.stepId = f.stepId as StepId;
  if (f.incident !== undefined) row.incidentId = f.incident;
  return row;
}
