// A sweep's state in Redis. Every key shares the store's hash tag, so the Lua steps below touch
// one Redis Cluster slot. What one table costs: a field in the results hash (its compact health)
// and a member of the scores sorted set; tasks in flight sit in a set until they are done.
//
//   sweep:current            the running sweep's id (SET NX: one sweep at a time)
//   sweep:<id>:meta          hash: startedAt, trigger, requestedBy, channel
//   sweep:<id>:pending       set of task ids (listing pages, tables) not finished yet
//   sweep:<id>:results       hash entry -> compact outcome
//   sweep:<id>:scores        sorted set entry -> score
//
// An entry is the table's name, prefixed with its named catalog ("lake-eu/sales.orders") when
// there is one: two catalogs may hold tables of the same name, and each is graded on its own.
//   sweep:<id>:digest        the digest, once built
//   sweep:<id>:spent         hash: requests, namespaces, tables, skip:<reason> (sweep.budget)
//   sweep:latest             the latest finished sweep's digest (JSON)
//   sweep:latest:results     its results and scores (renamed from the sweep's own keys)
//   sweep:latest:scores

import { AUDIT_CHECK_IDS, type AuditCheckId } from "../../core/ids.js";
import type { Digest } from "../../core/sweep/digest.js";
import type { CheckStatus, TableHealth, TableOutcome } from "../../core/sweep/health.js";
import type { SweepMeta, SweepStorePort, TableInCatalog } from "../../services/sweep/ports.js";
import type { RedisClient } from "../redis/connection.js";
import { runScript } from "../redis/scripts.js";
import { DEFAULT_NAMESPACE } from "./keys.js";

const DAY = 86_400;
/** A sweep's keys outlive it by a week at most, whatever happens to its jobs. */
const KEEP_SECONDS = 7 * DAY;

const STATUS_CODE: Record<CheckStatus, string> = { pass: "p", warn: "w", fail: "f" };
const CODE_STATUS: Record<string, CheckStatus> = { p: "pass", w: "warn", f: "fail" };

/** Compact form: about 40 bytes plus the fix; field names kept to one letter on purpose. */
interface Stored {
  s?: number;
  c?: string;
  v?: string;
  n?: string;
  f?: string;
  e?: string;
  /** The named catalog the table was listed in. */
  k?: string;
}

function encodeOutcome(outcome: TableOutcome): string {
  const k = outcome.catalog === undefined ? {} : { k: outcome.catalog };
  if (outcome.kind === "error")
    return JSON.stringify({ e: outcome.error.slice(0, 300), ...k } satisfies Stored);
  const c = AUDIT_CHECK_IDS.map((id) => {
    const status = outcome.checks[id];
    return status ? STATUS_CODE[status] : "-";
  }).join("");
  const stored: Stored = { s: outcome.score, c, v: outcome.verdict, ...k };
  if (outcome.nextStep) stored.n = outcome.nextStep;
  if (outcome.fix) stored.f = outcome.fix;
  return JSON.stringify(stored);
}

/** The hash field and set member of a table: its name, under its named catalog when it has one. */
function entryOf(table: string, catalog?: string): string {
  return catalog === undefined ? table : `${catalog}/${table}`;
}

function decodeOutcome(entry: string, text: string): TableOutcome {
  const stored = JSON.parse(text) as Stored;
  const catalog = stored.k === undefined ? {} : { catalog: stored.k };
  // "/" never appears in a table name (they are refused), so the catalog prefix comes off cleanly.
  const table =
    stored.k !== undefined && entry.startsWith(`${stored.k}/`) ? entry.slice(stored.k.length + 1) : entry;
  if (stored.e !== undefined) return { kind: "error", table, error: stored.e, ...catalog };
  const checks: TableHealth["checks"] = {};
  AUDIT_CHECK_IDS.forEach((id, i) => {
    const status = CODE_STATUS[stored.c?.[i] ?? "-"];
    if (status) checks[id] = status;
  });
  const health: TableOutcome = {
    kind: "health",
    table,
    score: stored.s ?? 0,
    checks,
    verdict: stored.v ?? "healthy",
    ...catalog,
  };
  if (stored.n) health.nextStep = stored.n;
  if (stored.f) health.fix = stored.f;
  return health;
}

export class SweepStore implements SweepStorePort {
  private readonly p: string;

  constructor(
    private readonly redis: RedisClient,
    namespace: string = DEFAULT_NAMESPACE,
  ) {
    this.p = `{${namespace}}:sweep`;
  }

  private key(...parts: string[]): string {
    return [this.p, ...parts].join(":");
  }

  /** Takes the one-sweep-at-a-time lock; true when this sweep holds it (again, on a retry). */
  async claim(sweepId: string, meta: SweepMeta): Promise<{ running: string | undefined; mine: boolean }> {
    const set = await this.redis.set(this.key("current"), sweepId, "EX", DAY, "NX");
    const running = set === "OK" ? sweepId : ((await this.redis.get(this.key("current"))) ?? undefined);
    const mine = running === sweepId;
    if (mine) {
      const fields: Record<string, string> = { startedAt: String(meta.startedAt), trigger: meta.trigger };
      if (meta.requestedBy) fields.requestedBy = meta.requestedBy;
      if (meta.channel) fields.channel = meta.channel;
      await this.redis
        .multi()
        .hsetnx(this.key(sweepId, "meta"), "startedAt", fields.startedAt!)
        .hset(this.key(sweepId, "meta"), fields)
        .expire(this.key(sweepId, "meta"), KEEP_SECONDS)
        .exec();
    }
    return { running, mine };
  }

  async running(): Promise<string | undefined> {
    return (await this.redis.get(this.key("current"))) ?? undefined;
  }

  async meta(sweepId: string): Promise<SweepMeta | undefined> {
    const raw = await this.redis.hgetall(this.key(sweepId, "meta"));
    if (!raw.startedAt) return undefined;
    return {
      startedAt: Number(raw.startedAt),
      trigger: raw.trigger === "command" ? "command" : "schedule",
      requestedBy: raw.requestedBy,
      channel: raw.channel,
    };
  }

  /** Registers tasks before their jobs are added, so the sweep cannot look finished in between. */
  async addPending(sweepId: string, taskIds: readonly string[]): Promise<void> {
    if (taskIds.length === 0) return;
    const key = this.key(sweepId, "pending");
    await this.redis
      .multi()
      .sadd(key, ...taskIds)
      .expire(key, KEEP_SECONDS)
      .exec();
  }

  async isPending(sweepId: string, taskId: string): Promise<boolean> {
    return (await this.redis.sismember(this.key(sweepId, "pending"), taskId)) === 1;
  }

  /** Records a table's outcome (if any) and marks the task done; returns the tasks left. */
  async finishTask(sweepId: string, taskId: string, outcome?: TableOutcome): Promise<number> {
    const left = await runScript(
      this.redis,
      "sweep-finish-task",
      [this.key(sweepId, "pending"), this.key(sweepId, "results"), this.key(sweepId, "scores")],
      [
        taskId,
        outcome ? entryOf(outcome.table, outcome.catalog) : "",
        outcome ? encodeOutcome(outcome) : "",
        outcome?.kind === "health" ? String(outcome.score) : "",
        String(KEEP_SECONDS),
      ],
    );
    return Number(left);
  }

  /** Every outcome of a sweep, a page at a time (HSCAN): memory stays flat in the catalog's size. */
  async *outcomes(sweepId: string, pageSize = 500): AsyncGenerator<TableOutcome[]> {
    let cursor = "0";
    do {
      const [next, flat] = await this.redis.hscan(this.key(sweepId, "results"), cursor, "COUNT", pageSize);
      cursor = next;
      const page: TableOutcome[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) page.push(decodeOutcome(flat[i]!, flat[i + 1]!));
      if (page.length > 0) yield page;
    } while (cursor !== "0");
  }

  /** The latest sweep's checks for these tables (for "what changed since the last sweep"). */
  async previousChecks(
    tables: readonly TableInCatalog[],
  ): Promise<(Partial<Record<AuditCheckId, CheckStatus>> | undefined)[]> {
    if (tables.length === 0) return [];
    const entries = tables.map((t) => entryOf(t.table, t.catalog));
    const raw = await this.redis.hmget(this.key("latest", "results"), ...entries);
    return raw.map((text, i) => {
      if (!text) return undefined;
      const outcome = decodeOutcome(entries[i]!, text);
      return outcome.kind === "health" ? outcome.checks : undefined;
    });
  }

  async hasLatest(): Promise<boolean> {
    return (await this.redis.exists(this.key("latest"))) === 1;
  }

  async savedDigest(sweepId: string): Promise<Digest | undefined> {
    const text = await this.redis.get(this.key(sweepId, "digest"));
    return text ? (JSON.parse(text) as Digest) : undefined;
  }

  async saveDigest(sweepId: string, digest: Digest): Promise<void> {
    await this.redis.set(this.key(sweepId, "digest"), JSON.stringify(digest), "EX", KEEP_SECONDS);
  }

  async promote(sweepId: string, digest: Digest): Promise<void> {
    await runScript(
      this.redis,
      "sweep-promote",
      [
        this.key("latest", "id"),
        this.key(sweepId, "results"),
        this.key(sweepId, "scores"),
        this.key("latest", "results"),
        this.key("latest", "scores"),
        this.key("latest"),
        this.key("current"),
        this.key(sweepId, "pending"),
      ],
      [sweepId, JSON.stringify(digest)],
    );
  }

  async latest(): Promise<Digest | undefined> {
    const text = await this.redis.get(this.key("latest"));
    return text ? (JSON.parse(text) as Digest) : undefined;
  }

  /** The `limit` worst tables of the latest sweep, worst first (for /metrics). */
  async latestWorst(limit: number): Promise<TableHealth[]> {
    if (limit <= 0) return [];
    const flat = await this.redis.zrange(this.key("latest", "scores"), 0, limit - 1);
    if (flat.length === 0) return [];
    const raw = await this.redis.hmget(this.key("latest", "results"), ...flat);
    const out: TableHealth[] = [];
    raw.forEach((text, i) => {
      if (!text) return;
      const outcome = decodeOutcome(flat[i]!, text);
      if (outcome.kind === "health") {
        const { kind: _kind, ...health } = outcome;
        out.push(health);
      }
    });
    return out;
  }

  async latestOutcome({ table, catalog }: TableInCatalog): Promise<TableOutcome | undefined> {
    const entry = entryOf(table, catalog);
    const text = await this.redis.hget(this.key("latest", "results"), entry);
    return text ? decodeOutcome(entry, text) : undefined;
  }

  async count(sweepId: string, add: Record<string, number>): Promise<Record<string, number>> {
    const key = this.key(sweepId, "spent");
    const fields = Object.keys(add);
    const multi = this.redis.multi();
    for (const field of fields) multi.hincrby(key, field, add[field]!);
    multi.expire(key, KEEP_SECONDS);
    const results = (await multi.exec()) ?? [];
    const out: Record<string, number> = {};
    fields.forEach((field, i) => {
      out[field] = Number(results[i]?.[1] ?? 0);
    });
    return out;
  }

  async counters(sweepId: string): Promise<Record<string, number>> {
    const raw = await this.redis.hgetall(this.key(sweepId, "spent"));
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Number(v)]));
  }
}
