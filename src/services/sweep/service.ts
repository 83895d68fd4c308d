// The scheduled sweep, spread over workers. A start job takes the one-sweep lock and queues the
// first listing; every listing page and every table is then a task of its own on a queue whose
// BullMQ limiter keeps to the catalog's budget (one catalog round trip per task). Tasks are
// registered in Redis before their jobs exist and crossed off after their result is stored, so
// a worker that dies mid-task leaves its task pending until another worker takes the stalled job
// over; the last task to finish queues the digest.

import { createHash } from "node:crypto";
import type { TableRef } from "../../core/evidence/model.js";
import type { Playbook } from "../../core/remediation/schema.js";
import type { BotConfig } from "../../core/settings.js";
import {
  type BudgetLimit,
  liesUnder,
  type SkipCount,
  type SkipReason,
  skipSummary,
} from "../../core/sweep/budget.js";
import { budgetLimits } from "../../core/sweep/config.js";
import {
  type Digest,
  DigestBuilder,
  type OpenIncidentRef,
  type RecurringDigest,
} from "../../core/sweep/digest.js";
import type { TableOutcome } from "../../core/sweep/health.js";
import { formatTableName } from "../../core/table-name.js";
import { asCodedError, CodedError, ErrorCode } from "../../errors.js";
import type { LogLike } from "../incident/deps.js";
import type { EvidencePorts, SlackOutboxPort } from "../ports.js";
import { gradeTable } from "./grade-table.js";
import type { SweepControlJob, SweepMeta, SweepQueuePort, SweepStorePort, SweepTask } from "./ports.js";

export interface SweepServiceDeps {
  store: SweepStorePort;
  queue: SweepQueuePort;
  /** The sweep's own ports: rate-limited, without Prometheus (trends are for incidents). */
  ports: EvidencePorts;
  bot: BotConfig;
  playbooks: readonly Playbook[];
  incidentChannel?: string;
  sourceTimeoutMs: number;
  now: () => number;
  log: LogLike;
  /** Tables with an open incident, and a link to its thread. */
  openIncidents(): Promise<Map<string, OpenIncidentRef>>;
  /** Tables that failed more than once in the retention window (the incident history). */
  recurring?(): Promise<RecurringDigest>;
  /** Posts the digest once per sweep (the adapter guards against a second post). */
  postDigest(sweepId: string, channel: string, digest: Digest): Promise<void>;
  /** Tells the person who asked that a sweep is already running. */
  slack: SlackOutboxPort;
}

export type StartOutcome = { started: true; sweepId: string } | { started: false; running: string };

function sweepIdFor(jobKey: string, atMs: number): string {
  const stamp = new Date(atMs).toISOString().replace(/[-:]/g, "").slice(0, 15);
  return `${stamp}-${shortHash(jobKey)}`;
}

export function taskId(task: SweepTask): string {
  switch (task.kind) {
    // A named catalog is part of the identity: two catalogs may hold the same names.
    case "namespaces":
      return `ns-${task.sweepId}-${shortHash(`${(task.parent ?? []).join("\u001f")}\u0000${task.pageToken ?? ""}${inCatalog(task)}`)}`;
    case "tables":
      return `tb-${task.sweepId}-${shortHash(`${task.namespace.join("\u001f")}\u0000${task.pageToken ?? ""}${inCatalog(task)}`)}`;
    case "table":
      return `t-${task.sweepId}-${shortHash(`${task.table}${inCatalog(task)}`)}`;
  }
}

function inCatalog(task: SweepTask): string {
  return task.catalog === undefined ? "" : `\u0000${task.catalog}`;
}

function shortHash(text: string): string {
  return createHash("sha1").update(text).digest("base64url").slice(0, 16);
}

export class SweepService {
  constructor(private readonly deps: SweepServiceDeps) {}

  /** Starts a sweep unless one is running; `jobKey` is the start job's id (a retry reuses the sweep). */
  async start(
    request: Omit<Extract<SweepControlJob, { kind: "start" }>, "kind">,
    jobKey: string,
    jobAtMs: number,
  ): Promise<StartOutcome> {
    const sweepId = sweepIdFor(jobKey, jobAtMs);
    const meta: SweepMeta = { startedAt: jobAtMs, trigger: request.trigger };
    if (request.requestedBy) meta.requestedBy = request.requestedBy;
    if (request.channel) meta.channel = request.channel;
    const claim = await this.deps.store.claim(sweepId, meta);
    if (!claim.mine) {
      const running = claim.running ?? "unknown";
      this.deps.log.info({ sweep: running, asked: sweepId }, "sweep already running, not starting another");
      if (request.requestedBy && request.channel) {
        await this.deps.slack.send({
          kind: "ephemeral",
          channel: request.channel,
          user: request.requestedBy,
          reply: {
            kind: "text",
            text: "A sweep of the catalog is already running; its digest will be posted when it is done.",
          },
        });
      }
      return { started: false, running };
    }
    const roots = this.rootTasks(sweepId);
    await this.schedule(sweepId, roots);
    this.deps.log.info({ sweep: sweepId, trigger: request.trigger }, "sweep started");
    return { started: true, sweepId };
  }

  /**
   * One task; `lastAttempt` turns a failure into a recorded error instead of a retry. A task run
   * again after a failed attempt (`retried`) spends a request but is not counted as a table or
   * namespace a second time, so retries never push a sweep past its tables budget.
   */
  async runTask(task: SweepTask, lastAttempt: boolean, retried = false): Promise<void> {
    const { store } = this.deps;
    const id = taskId(task);
    if (!(await store.isPending(task.sweepId, id))) {
      // Done before (the job ran again after its result was stored): only make sure the digest follows.
      if ((await store.finishTask(task.sweepId, id)) === 0) await this.deps.queue.addFinish(task.sweepId);
      return;
    }
    let children: SweepTask[] = [];
    let outcome: TableOutcome | undefined;
    const over = await this.overBudget(task, retried);
    if (over) {
      // Past a limit every task still ends (so the digest follows and the lock is let go), but
      // without asking the catalog: the rest of the sweep drains in moments.
      await store.count(task.sweepId, { [`skip:${over}`]: 1 });
      const left = await store.finishTask(task.sweepId, id);
      if (left === 0) await this.deps.queue.addFinish(task.sweepId);
      return;
    }
    try {
      if (task.kind === "table") outcome = await this.grade(task.table, task.catalog);
      else children = await this.list(task);
    } catch (error) {
      const coded = asCodedError(error);
      if (coded.retryable && !lastAttempt) throw coded;
      outcome = {
        kind: "error",
        table: labelOf(task),
        error: coded.message,
        ...(task.catalog ? { catalog: task.catalog } : {}),
      };
      this.deps.log.warn(
        { sweep: task.sweepId, task: labelOf(task), err: coded.message },
        "sweep task gave up",
      );
    }
    await this.schedule(task.sweepId, children);
    const left = await store.finishTask(task.sweepId, id, outcome);
    if (left === 0) await this.deps.queue.addFinish(task.sweepId);
  }

  /** Folds the results into the digest, makes this sweep the latest, and posts the digest. */
  async finish(sweepId: string): Promise<Digest | undefined> {
    const { store, bot } = this.deps;
    const meta = await store.meta(sweepId);
    if (!meta) return undefined;
    let digest = await store.savedDigest(sweepId);
    if (!digest) {
      const builder = new DigestBuilder({
        sweepId,
        startedAtMs: meta.startedAt,
        worstLimit: bot.sweep.worst,
        hasPrevious: await store.hasLatest(),
        openIncidents: await this.deps.openIncidents(),
        skipped: skippedOf(await store.counters(sweepId)),
      });
      for await (const page of store.outcomes(sweepId)) {
        const previous = await store.previousChecks(page);
        page.forEach((outcome, i) => {
          builder.add(outcome, previous[i]);
        });
      }
      digest = builder.finish(this.deps.now());
      const recurring = await this.deps.recurring?.();
      if (recurring && recurring.tables.length > 0) digest = { ...digest, recurring };
      await store.saveDigest(sweepId, digest);
    }
    await store.promote(sweepId, digest);
    const channel = bot.sweep.channel ?? bot.defaults.channel ?? this.deps.incidentChannel ?? meta.channel;
    if (channel) await this.deps.postDigest(sweepId, channel, digest);
    else this.deps.log.warn({ sweep: sweepId }, "sweep digest not posted: no channel (set sweep.channel)");
    this.deps.log.info(
      { sweep: sweepId, tables: digest.tables, failing: digest.failingTables },
      "sweep finished",
    );
    return digest;
  }

  /** The limit this task would pass, counting it against the sweep's budget when it does not. */
  private async overBudget(task: SweepTask, retried: boolean): Promise<BudgetLimit | undefined> {
    const limits = budgetLimits(this.deps.bot.sweep);
    const meta = await this.deps.store.meta(task.sweepId);
    if (meta && this.deps.now() - meta.startedAt >= limits.timeMs) return "time";
    if (task.kind !== "table" && (task.page ?? 0) >= limits.pagesPerListing) return "pages";
    const add: Record<string, number> = { requests: 1 };
    if (task.kind === "tables" && !task.pageToken && !retried) add.namespaces = 1;
    if (task.kind === "table" && !retried) add.tables = 1;
    const spent = await this.deps.store.count(task.sweepId, add);
    if ((spent.requests ?? 0) > limits.requests) return "requests";
    if ((spent.namespaces ?? 0) > limits.namespaces) return "namespaces";
    if ((spent.tables ?? 0) > limits.tables) return "tables";
    return undefined;
  }

  private rootTasks(sweepId: string): SweepTask[] {
    const prefixes = this.deps.bot.sweep.namespaces;
    const roots = (catalog: string | undefined): SweepTask[] => {
      const where = catalog === undefined ? {} : { catalog };
      if (prefixes.length === 0) return [{ kind: "namespaces", sweepId, ...where }];
      return prefixes.flatMap((prefix): SweepTask[] => {
        const levels = prefix.split(".").filter(Boolean);
        return [
          { kind: "tables", sweepId, namespace: levels, ...where },
          { kind: "namespaces", sweepId, parent: levels, ...where },
        ];
      });
    };
    const catalogs = sweptCatalogs(this.deps.ports, this.deps.bot);
    return catalogs ? catalogs.flatMap(roots) : roots(undefined);
  }

  private async schedule(sweepId: string, tasks: SweepTask[]): Promise<void> {
    if (tasks.length === 0) return;
    await this.deps.store.addPending(sweepId, tasks.map(taskId));
    await this.deps.queue.addTasks(tasks);
  }

  private catalog(name?: string) {
    const named = name === undefined ? undefined : this.deps.ports.catalogs?.byName(name);
    if (name !== undefined && !named)
      throw new CodedError(ErrorCode.ConfigInvalid, `No catalog is named ${name}`, {
        hint: "Check sweep.catalogs against sources.catalogs in BOT_CONFIG.",
      });
    const catalog = named?.port ?? this.deps.ports.catalog;
    if (!catalog) {
      throw new CodedError(
        ErrorCode.ConfigInvalid,
        "A sweep needs the Iceberg catalog, which is not configured.",
        {
          hint: "Set ICEBERG_CATALOG_URL.",
        },
      );
    }
    return catalog;
  }

  private async list(task: Exclude<SweepTask, { kind: "table" }>): Promise<SweepTask[]> {
    const { sweepId } = task;
    if (task.kind === "namespaces") {
      const where = task.catalog === undefined ? {} : { catalog: task.catalog };
      const page = await this.catalog(task.catalog).listNamespacesPage(task.parent, task.pageToken);
      // A catalog that ignores ?parent= would send the walk round its top level forever.
      const under = page.items.filter((namespace) => liesUnder(task.parent, namespace));
      const outside = page.items.length - under.length;
      if (outside > 0) await this.deps.store.count(sweepId, { "skip:outside-parent": outside });
      const out: SweepTask[] = under.flatMap((namespace): SweepTask[] => [
        { kind: "tables", sweepId, namespace, ...where },
        { kind: "namespaces", sweepId, parent: namespace, ...where },
      ]);
      if (page.nextPageToken)
        out.push({ ...task, pageToken: page.nextPageToken, page: (task.page ?? 0) + 1 });
      return out;
    }
    const page = await this.catalog(task.catalog).listTablesPage(task.namespace, task.pageToken);
    const out: SweepTask[] = page.items.map((ref: TableRef) => ({
      kind: "table",
      sweepId,
      table: formatTableName(ref),
      ...(task.catalog === undefined ? {} : { catalog: task.catalog }),
    }));
    if (page.nextPageToken) out.push({ ...task, pageToken: page.nextPageToken, page: (task.page ?? 0) + 1 });
    return out;
  }

  private async grade(table: string, catalog: string | undefined): Promise<TableOutcome> {
    const { health } = await gradeTable(this.deps.ports, table, this.deps.now, {
      bot: this.deps.bot,
      playbooks: this.deps.playbooks,
      timeoutMs: this.deps.sourceTimeoutMs,
      ...(catalog === undefined ? {} : { catalogSource: catalog }),
    });
    return { kind: "health", ...health };
  }
}

/**
 * The named catalogs a sweep walks: those sweep.catalogs lists, else every catalog not marked
 * `sweep: false`; undefined when only the one default catalog is configured.
 */
export function sweptCatalogs(ports: EvidencePorts, bot: BotConfig): string[] | undefined {
  const directory = ports.catalogs;
  if (!directory) return undefined;
  if (bot.sweep.catalogs.length > 0) return [...bot.sweep.catalogs];
  const excluded = new Set(bot.sources.catalogs.filter((c) => !c.sweep).map((c) => c.name));
  return directory.all.map((c) => c.name).filter((name) => !excluded.has(name));
}

function skippedOf(counters: Record<string, number>): SkipCount[] {
  const counts: Partial<Record<SkipReason, number>> = {};
  for (const [field, n] of Object.entries(counters)) {
    if (field.startsWith("skip:")) counts[field.slice(5) as SkipReason] = n;
  }
  return skipSummary(counts);
}

function labelOf(task: SweepTask): string {
  if (task.kind === "table") return task.table;
  if (task.kind === "tables") return `${task.namespace.join(".")} (table listing)`;
  return `${task.parent?.join(".") || "(root)"} (namespace listing)`;
}
