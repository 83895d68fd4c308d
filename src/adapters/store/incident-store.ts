// Incidents in Redis. Opening is one Lua script (check the table's open key, else create), so a
// storm of alerts from any number of bot processes lands in one incident per table. Fields are
// a hash so counters and state change without read-modify-write races.

import { z } from "zod";
import { INCIDENT_STATES, type Incident, type TimelineEntry } from "../../core/incident/model.js";
import { CodedError, ErrorCode } from "../../errors.js";
import type { RedisClient } from "../redis/connection.js";
import { createKeys, type Keys } from "./keys.js";

// KEYS: open key, sequence, open set, recent tables. ARGV: table, now, channel, incident key prefix.
const OPEN_OR_JOIN = `
local existing = redis.call('GET', KEYS[1])
if existing then
  redis.call('HINCRBY', ARGV[4] .. existing, 'alertCount', 1)
  return {existing, 0}
end
local id = 'inc-' .. redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], id)
redis.call('HSET', ARGV[4] .. id, 'id', id, 'table', ARGV[1], 'state', 'open', 'channel', ARGV[3],
  'openedAt', ARGV[2], 'updatedAt', ARGV[2], 'alertCount', 1, 'diagnoses', 0, 'cardVersion', 1)
redis.call('ZADD', KEYS[3], ARGV[2], id)
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
return {id, 1}
`;

// KEYS: open key, open set, incident hash. ARGV: id, state, now.
const CLOSE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], 'state', ARGV[2], 'resolvedAt', ARGV[3], 'updatedAt', ARGV[3])
return redis.call('HINCRBY', KEYS[3], 'cardVersion', 1)
`;

const num = z.coerce.number();
const IncidentHashSchema = z.object({
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
  diagnoses: num,
  verdict: z.string().optional(),
  cardVersion: num,
  resolvedAt: num.optional(),
  walk: z.string().optional(),
});

export interface OpenResult {
  incident: Incident;
  created: boolean;
}

export interface IncidentStoreOptions {
  namespace?: string;
  timelineMaxLength?: number;
}

export class IncidentStore {
  readonly keys: Keys;
  private readonly timelineMax: number;

  constructor(
    private readonly redis: RedisClient,
    options: IncidentStoreOptions = {},
  ) {
    this.keys = createKeys(options.namespace);
    this.timelineMax = options.timelineMaxLength ?? 1000;
  }

  /** Opens the table's incident, or joins the open one (counting the alert). Atomic across processes. */
  async openOrJoin(table: string, channel: string, now: number): Promise<OpenResult> {
    const k = this.keys;
    const [id, created] = (await this.redis.eval(
      OPEN_OR_JOIN,
      4,
      k.openByTable(table),
      k.sequence(),
      k.openSet(),
      k.recentTables(),
      table,
      String(now),
      channel,
      k.incident(""),
    )) as [string, number];
    const incident = await this.require(id);
    if (created === 1)
      await this.appendTimeline(id, { at: now, kind: "opened", text: `Incident opened for ${table}` });
    return { incident, created: created === 1 };
  }

  async get(id: string): Promise<Incident | undefined> {
    const hash = await this.redis.hgetall(this.keys.incident(id));
    if (Object.keys(hash).length === 0) return undefined;
    const parsed = IncidentHashSchema.parse(hash);
    const { walk, ...rest } = parsed;
    return { ...rest, walk: walk === undefined ? undefined : (JSON.parse(walk) as unknown) };
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

  async openIncidentFor(table: string): Promise<Incident | undefined> {
    const id = await this.redis.get(this.keys.openByTable(table));
    return id ? this.get(id) : undefined;
  }

  /** Open incidents, newest first. */
  async listOpen(limit = 50): Promise<Incident[]> {
    const ids = await this.redis.zrevrange(this.keys.openSet(), 0, limit - 1);
    const incidents = await Promise.all(ids.map((id) => this.get(id)));
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
  async update(
    id: string,
    fields: Partial<
      Pick<Incident, "state" | "rootTs" | "verdict" | "lastAlertName" | "alertResolvedAt" | "walk">
    >,
    now: number,
    bumpCard = false,
  ): Promise<number> {
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
    const version = await this.redis.eval(
      CLOSE,
      3,
      k.openByTable(incident.table),
      k.openSet(),
      k.incident(incident.id),
      incident.id,
      state,
      String(now),
    );
    return Number(version);
  }

  async saveReport(id: string, n: number, report: unknown): Promise<void> {
    await this.redis.hset(this.keys.reports(id), String(n), JSON.stringify(report));
  }

  async getReport(id: string, n: number): Promise<unknown> {
    const raw = await this.redis.hget(this.keys.reports(id), String(n));
    return raw === null ? undefined : (JSON.parse(raw) as unknown);
  }

  async appendTimeline(id: string, entry: TimelineEntry): Promise<void> {
    await this.redis.xadd(
      this.keys.timeline(id),
      "MAXLEN",
      "~",
      this.timelineMax,
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

  /** The per-table audit trail (who proposed, approved, applied what); read by /iceberg history. */
  async appendAudit(table: string, entry: Record<string, string>): Promise<void> {
    const flat = Object.entries(entry).flat();
    await this.redis.xadd(this.keys.tableAudit(table), "MAXLEN", "~", 10_000, "*", ...flat);
  }

  async audit(table: string, count = 50): Promise<Record<string, string>[]> {
    const rows = await this.redis.xrevrange(this.keys.tableAudit(table), "+", "-", "COUNT", count);
    return rows.map(([, flat]) => fromFlat(flat));
  }
}

function fromFlat(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  if (out.at !== undefined) (out as Record<string, unknown>).at = Number(out.at);
  return out;
}
