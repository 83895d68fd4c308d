// The incident history per table (core/history/record.ts), kept as long as closed incidents are
// (`retention.resolvedDays`). One hash per table (incident id -> record JSON, written once per
// incident, so a repeated write replaces rather than duplicates) and a sorted set by when each
// incident closed, trimmed to the retention window on every write; both keys expire when the table
// has had no incident for that long. A set of tables with history lets the fleet view find them.
//
// The fleet view (/metrics on every scrape, App Home, the sweep digest) reads every table's
// history. It changes only when an incident closes, so each save bumps a version counter and a
// process keeps its last fleet read until the version moves or a minute passes (records age out of
// the window with time alone): a scrape with nothing new costs one GET instead of two round trips
// per table.

import { HISTORY_FORMAT, type IncidentHistory, readHistoryRecord } from "../../core/history/record.js";
import type { HistoryPort, UnreadableRecord } from "../../services/ports.js";
import type { RedisClient } from "../redis/connection.js";
import { runScript } from "../redis/scripts.js";
import { createKeys, type Keys } from "./keys.js";
import { DAY_MS } from "./retention.js";

/** One fleet read: the records, and those left out because they cannot be read. */
interface FleetRead {
  histories: IncidentHistory[];
  unreadable: UnreadableRecord[];
}

/** At most this many incidents per table, however long the retention. */
const MAX_PER_TABLE = 200;
/** How long a fleet read is reused while no incident closes (records leave the window with time). */
export const FLEET_REFRESH_MS = 60_000;

interface HistoryStoreOptions {
  namespace?: string;
  resolvedDays: number;
  now: () => number;
  /** Told once per record this process finds unreadable (it is passed over in every list). */
  onUnreadable?: (where: { table: string; incidentId: string; why: string }) => void;
}

export class HistoryStore implements HistoryPort {
  private readonly keys: Keys;
  /** Records already reported unreadable, so a damaged one is logged once, not on every read. */
  private readonly reported = new Set<string>();

  constructor(
    private readonly redis: RedisClient,
    private readonly options: HistoryStoreOptions,
  ) {
    this.keys = createKeys(options.namespace);
  }

  /** This process's last fleet read, shared by every caller until the history moves on. */
  private fleet?: { version: string; atMs: number; maxTables: number; histories: Promise<FleetRead> };

  async save(record: IncidentHistory): Promise<void> {
    const ttlMs = this.options.resolvedDays * DAY_MS;
    await runScript(
      this.redis,
      "history-save",
      [
        this.keys.history(record.table),
        this.keys.historyIndex(record.table),
        this.keys.historyTables(),
        this.keys.historyVersion(),
      ],
      [
        record.incidentId,
        JSON.stringify(record),
        String(record.closedAtMs),
        String(this.options.now() - ttlMs),
        String(ttlMs),
        record.table,
        String(MAX_PER_TABLE),
      ],
    );
  }

  /**
   * The table's incidents within the retention window, newest first. A record that cannot be read
   * is left out and handed to `onUnreadable`, for the caller to tell whoever asked.
   */
  async list(table: string, onUnreadable?: (record: UnreadableRecord) => void): Promise<IncidentHistory[]> {
    const since = this.options.now() - this.options.resolvedDays * DAY_MS;
    const ids = await this.redis.zrevrangebyscore(this.keys.historyIndex(table), "+inf", since);
    if (ids.length === 0) return [];
    const values = await this.redis.hmget(this.keys.history(table), ...ids);
    return values.flatMap((text, i) => (text ? this.read(text, table, ids[i]!, onUnreadable) : []));
  }

  async get(table: string, incidentId: string): Promise<IncidentHistory | undefined> {
    const text = await this.redis.hget(this.keys.history(table), incidentId);
    return text ? this.read(text, table, incidentId)[0] : undefined;
  }

  private read(
    text: string,
    table: string,
    incidentId: string,
    onUnreadable?: (record: UnreadableRecord) => void,
  ): IncidentHistory[] {
    const parsed = parseHistory(text);
    if (parsed.ok) return [parsed.record];
    onUnreadable?.({ kind: "history", id: incidentId, table, newer: parsed.newer });
    const key = `${table}\u0000${incidentId}`;
    if (!this.reported.has(key)) {
      // Bounded: a process that met thousands of damaged records starts counting again.
      if (this.reported.size >= 1000) this.reported.clear();
      this.reported.add(key);
      this.options.onUnreadable?.({ table, incidentId, why: parsed.why });
    }
    return [];
  }

  /**
   * Every table's incidents within the retention window (the fleet view), at most `maxTables`
   * tables. Callers share the array: read it, never change it. The records left out are handed to
   * `onUnreadable`, from a shared read as from a fresh one.
   */
  async all(maxTables = 1000, onUnreadable?: (record: UnreadableRecord) => void): Promise<IncidentHistory[]> {
    const read = await this.fleetRead(maxTables);
    for (const record of read.unreadable) onUnreadable?.(record);
    return read.histories;
  }

  private async fleetRead(maxTables: number): Promise<FleetRead> {
    const version = (await this.redis.get(this.keys.historyVersion())) ?? "0";
    const atMs = this.options.now();
    const last = this.fleet;
    if (
      last !== undefined &&
      last.version === version &&
      last.maxTables === maxTables &&
      atMs >= last.atMs &&
      atMs - last.atMs < FLEET_REFRESH_MS
    )
      return last.histories;
    const histories = this.readFleet(maxTables);
    this.fleet = { version, atMs, maxTables, histories };
    // A failed read is not kept: the next caller tries again.
    histories.catch(() => {
      if (this.fleet?.histories === histories) this.fleet = undefined;
    });
    return histories;
  }

  private async readFleet(maxTables: number): Promise<FleetRead> {
    const tables = (await this.tablesWithHistory()).slice(-maxTables);
    const unreadable: UnreadableRecord[] = [];
    const lists = await Promise.all(tables.map((t) => this.list(t, (record) => unreadable.push(record))));
    return { histories: lists.flat(), unreadable };
  }

  /** Every table with an incident in the retention window (the fleet view). */
  async tablesWithHistory(): Promise<string[]> {
    return this.redis.zrangebyscore(
      this.keys.historyTables(),
      this.options.now() - this.options.resolvedDays * DAY_MS,
      "+inf",
    );
  }
}

/**
 * A stored record, validated to its nested fields (core/history/record.ts): a newer format
 * is read when its fields are there (fields added later are kept); anything else is passed over.
 */
function parseHistory(
  text: string,
): { ok: true; record: IncidentHistory } | { ok: false; why: string; newer: boolean } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, why: "not JSON", newer: false };
  }
  const read = readHistoryRecord(raw);
  if (read.ok) return read;
  const format = (raw as { format?: unknown } | null)?.format;
  return { ...read, newer: typeof format === "number" && format > HISTORY_FORMAT };
}
