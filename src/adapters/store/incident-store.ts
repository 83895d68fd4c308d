// Incidents in Redis. Opening is one Lua script (check the table's open key, else create), so a
// storm of alerts from any number of bot processes lands in one incident per table. Fields are
// a hash so counters and state change without read-modify-write races.

import { z } from "zod";
import { INCIDENT_STATES, type Incident, type TimelineEntry } from "../../core/incident/model.js";
import { CodedError, ErrorCode, isCodedError } from "../../errors.js";
import type {
  AuditRow,
  IncidentFields,
  IncidentStorePort,
  IntakeAlert,
  IntakePromise,
  IntakeResult,
  OpenResult,
} from "../../services/ports.js";
import type { RedisClient } from "../redis/connection.js";
import { runScript } from "../redis/scripts.js";
import { auditRowOf } from "./audit-trail.js";
import { createKeys, type Keys } from "./keys.js";
import { readStoredPart, storedRecordInvalid, writeStoredPart } from "./report-format.js";

/**
 * Stored format of the incident hash: 2 adds the `format` field; format 1 (no field, 0.1.0) has
 * the same fields and reads as it is. IncidentHashSchema validates every read.
 */
export const INCIDENT_FORMAT = 2;

const num = z.coerce.number();
const IncidentHashSchema = z.object({
  format: num.optional(),
  id: z.string(),
  table: z.string(),
  state: z.enum(INCIDENT_STATES),
  channel: z.string(),
  openedAt: num,
  updatedAt: num,
  rootTs: z.string().optional(),
  alertCount: num,
  lastAlertName: z.string().optional(),
  alertResolvedAt: num.optional(),
  firingAlerts: num.optional(),
  diagnoses: num,
  verdict: z.string().optional(),
  cardVersion: num,
  resolvedAt: num.optional(),
  // The card's walk summary as JSON; checked against its schema where it is drawn (readCardSummary).
  walk: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "not JSON" });
        return z.NEVER;
      }
    }),
  tableUnknown: z
    .literal("true")
    .optional()
    .transform((v) => (v === undefined ? undefined : true)),
});

/** The most entries an incident's timeline keeps (approximately: MAXLEN ~). */
const TIMELINE_MAX = 1000;

export interface IncidentStoreOptions {
  namespace?: string;
  /** Real time, for what is scheduled in it (outbox entries), whatever clock incidents read. */
  wallClock?: () => number;
}

export class IncidentStore implements IncidentStorePort {
  readonly keys: Keys;
  private readonly wallClock: () => number;

  constructor(
    private readonly redis: RedisClient,
    options: IncidentStoreOptions = {},
  ) {
    this.keys = createKeys(options.namespace);
    this.wallClock = options.wallClock ?? Date.now;
  }

  /** Opens the table's incident, or joins the open one (counting the alert). Atomic across processes. */
  async openOrJoin(table: string, channel: string, now: number): Promise<OpenResult> {
    const k = this.keys;
    const [id, created] = (await runScript(
      this.redis,
      "incident-open-or-join",
      [k.openByTable(table), k.sequence(), k.openSet(), k.recentTables()],
      [table, String(now), channel, k.incident(""), INCIDENT_FORMAT],
    )) as [string, number];
    const incident = await this.require(id);
    if (created === 1)
      await this.appendTimeline(id, { at: now, kind: "opened", text: `Incident opened for ${table}` });
    return { incident, created: created === 1 };
  }

  /**
   * Records a batch of alerts in one round trip (scripts/incident-intake.lua). The work per alert is a few hash
   * and stream writes: nothing in it grows with the number of open incidents.
   */
  async intake(
    alerts: readonly IntakeAlert[],
    now: number,
    repeatTtlSeconds: number,
  ): Promise<IntakeResult[]> {
    if (alerts.length === 0) return [];
    const k = this.keys;
    const keys = [k.sequence(), k.openSet(), k.recentTables(), k.intakePromises()];
    const args = [
      String(now),
      k.incident(""),
      k.timeline(""),
      String(repeatTtlSeconds),
      String(TIMELINE_MAX),
      String(this.wallClock()),
      k.firing(""),
      String(INCIDENT_FORMAT),
    ];
    for (const alert of alerts) {
      keys.push(k.seen("alert", alert.repeatKey), k.openByTable(alert.table));
      args.push(alert.status, alert.table, alert.channel, alert.alertName, alert.text, alert.fingerprint);
    }
    const rows = (await runScript(this.redis, "incident-intake", keys, args)) as [number, string, number][];
    return rows.map(([kind, id, version]): IntakeResult => {
      switch (kind) {
        case 1:
          return Number(version) > 0
            ? { kind: "joined", incidentId: id, cardVersion: Number(version) }
            : { kind: "joined", incidentId: id };
        case 2:
          return { kind: "opened", incidentId: id };
        case 3:
          return Number(version) > 0
            ? { kind: "resolved-noted", incidentId: id, cardVersion: Number(version) }
            : { kind: "resolved-noted", incidentId: id };
        case 4:
          return { kind: "nothing-open" };
        default:
          return { kind: "repeat" };
      }
    });
  }

  /**
   * Intake promises recorded more than `olderThanMs` ago (wall clock), oldest first: work whose
   * enqueue may have been lost. The intake script writes them to a sorted set scored by when they
   * were made (services/intake-promises.ts says what they are).
   */
  async duePromises(olderThanMs: number, limit = 100): Promise<IntakePromise[]> {
    const madeBy = this.wallClock() - olderThanMs;
    const members = await this.redis.zrangebyscore(
      this.keys.intakePromises(),
      "-inf",
      madeBy,
      "LIMIT",
      0,
      limit,
    );
    return members.flatMap((member) => {
      const entry = intakePromise(member);
      return entry ? [entry] : [];
    });
  }

  /** Clears promises whose work is queued. */
  async promisesKept(entries: readonly IntakePromise[]): Promise<void> {
    if (entries.length === 0) return;
    await this.redis.zrem(this.keys.intakePromises(), ...entries.map((e) => e.member));
  }

  async get(id: string): Promise<Incident | undefined> {
    const hash = await this.redis.hgetall(this.keys.incident(id));
    if (Object.keys(hash).length === 0) return undefined;
    const result = IncidentHashSchema.safeParse(hash);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw incidentUnreadable(id, `${issue?.path.join(".")}: ${issue?.message}`);
    }
    const { walk, format, ...rest } = result.data;
    // A newer release's incident is not acted on: field writes here would mix two formats in it.
    if (format !== undefined && format > INCIDENT_FORMAT)
      throw incidentUnreadable(id, `format ${format} is newer than ${INCIDENT_FORMAT}`, true);
    return { ...rest, walk };
  }

  async require(id: string): Promise<Incident> {
    const incident = await this.get(id);
    if (!incident) {
      throw new CodedError(ErrorCode.Internal, `Incident ${id} is not in Redis.`, {
        hint: "It may have expired or been deleted; open a new one with /iceberg diagnose <table>.",
      });
    }
    return incident;
  }

  /** Which of these tables have an open incident (one round trip). */
  async openTables(tables: readonly string[]): Promise<Set<string>> {
    if (tables.length === 0) return new Set();
    const ids = await this.redis.mget(...tables.map((t) => this.keys.openByTable(t)));
    return new Set(tables.filter((_, i) => ids[i] !== null));
  }

  async openIncidentFor(table: string): Promise<Incident | undefined> {
    const id = await this.redis.get(this.keys.openByTable(table));
    return id ? this.get(id) : undefined;
  }

  /**
   * Open incidents, newest first. One that cannot be read is left out and handed to
   * `onUnreadable` (the caller says so to whoever asked), so it never hides the others.
   */
  async listOpen(
    limit = 50,
    onUnreadable?: (incidentId: string, error: CodedError) => void,
  ): Promise<Incident[]> {
    const ids = await this.redis.zrevrange(this.keys.openSet(), 0, limit - 1);
    const incidents = await Promise.all(
      ids.map((id) =>
        this.get(id).catch((error: unknown) => {
          if (!isCodedError(error, ErrorCode.StoredRecordInvalid)) throw error;
          onUnreadable?.(id, error);
          return undefined;
        }),
      ),
    );
    return incidents.filter((i): i is Incident => i !== undefined);
  }

  /** Tables that had an incident opened since `sinceMs`, newest first. */
  async recentTables(sinceMs: number): Promise<Array<{ table: string; lastOpenedAt: number }>> {
    const flat = await this.redis.zrevrangebyscore(this.keys.recentTables(), "+inf", sinceMs, "WITHSCORES");
    const out: Array<{ table: string; lastOpenedAt: number }> = [];
    for (let i = 0; i + 1 < flat.length; i += 2)
      out.push({ table: flat[i]!, lastOpenedAt: Number(flat[i + 1]) });
    return out;
  }

  /** Sets plain fields; `bumpCard` marks a change the status card must show. Returns the card version. */
  async update(id: string, fields: IncidentFields, now: number, bumpCard = false): Promise<number> {
    const key = this.keys.incident(id);
    const flat: Record<string, string> = { updatedAt: String(now) };
    for (const [name, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      flat[name] = name === "walk" ? JSON.stringify(value) : String(value);
    }
    const tx = this.redis.multi().hset(key, flat);
    tx.hincrby(key, "cardVersion", bumpCard ? 1 : 0);
    const results = await tx.exec();
    return Number(results?.[1]?.[1] ?? 0);
  }

  /** Reserves the next diagnosis number (1, 2, …) for the incident. */
  async nextDiagnosis(id: string): Promise<number> {
    return this.redis.hincrby(this.keys.incident(id), "diagnoses", 1);
  }

  async close(incident: Incident, state: "resolved" | "stopped", now: number): Promise<number> {
    const k = this.keys;
    const version = await runScript(
      this.redis,
      "incident-close",
      [k.openByTable(incident.table), k.openSet(), k.incident(incident.id), k.closed()],
      [incident.id, state, String(now)],
    );
    return Number(version);
  }

  async saveReport(id: string, n: number, report: unknown): Promise<void> {
    await this.redis.hset(this.keys.reports(id), String(n), writeStoredPart("report", report));
  }

  /** Diagnosis n's report as stored (consumers validate it with ReportSchema); undefined when gone. */
  async getReport(id: string, n: number): Promise<unknown> {
    const key = this.keys.reports(id);
    const raw = await this.redis.hget(key, String(n));
    return raw === null ? undefined : readStoredPart(raw, "report", key, String(n));
  }

  /** The commit timeline drawn for diagnosis n, kept beside its report. */
  async saveChart(id: string, n: number | "recovery", chart: unknown): Promise<void> {
    await this.redis.hset(this.keys.reports(id), `chart-${n}`, writeStoredPart("chart", chart));
  }

  async getChart(id: string, n: number | "recovery"): Promise<unknown> {
    const key = this.keys.reports(id);
    const raw = await this.redis.hget(key, `chart-${n}`);
    return raw === null ? undefined : readStoredPart(raw, "chart", key, `chart-${n}`);
  }

  async appendTimeline(id: string, entry: TimelineEntry): Promise<void> {
    await this.redis.xadd(
      this.keys.timeline(id),
      "MAXLEN",
      "~",
      TIMELINE_MAX,
      "*",
      "at",
      String(entry.at),
      "kind",
      entry.kind,
      "text",
      entry.text,
    );
  }

  async timeline(id: string): Promise<TimelineEntry[]> {
    const rows = await this.redis.xrange(this.keys.timeline(id), "-", "+");
    return rows.map(([, flat]) => fromFlat(flat) as unknown as TimelineEntry);
  }

  /** The per-table audit trail (who proposed, approved, applied what), newest first; read by /iceberg history. */
  async audit(table: string, count = 50): Promise<AuditRow[]> {
    const rows = await this.redis.xrevrange(this.keys.tableAudit(table), "+", "-", "COUNT", count);
    return rows.map(([, flat]) => auditRowOf(flat));
  }
}

/** A member the intake script wrote ("open|<incident>" or "card|<incident>|<card version>"), as the promise it stands for. */
function intakePromise(member: string): IntakePromise | undefined {
  const [kind, incidentId, version] = member.split("|");
  if (kind === "open" && incidentId) return { kind, incidentId, member };
  if (kind === "card" && incidentId && version) return { kind, incidentId, version: Number(version), member };
  return undefined;
}

function fromFlat(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  if (out.at !== undefined) (out as Record<string, unknown>).at = Number(out.at);
  return out;
}

const incidentUnreadable = (id: string, why: string, newer = false) =>
  storedRecordInvalid(`The stored incident ${id} cannot be read: ${why}`, newer, { incidentId: id });
