// The whole simulated lakehouse state built from a scenario, plus the rules that move it along
// with the clock: recovered writers commit again, restarted connector tasks run (or fail again).

import { CodedError, ErrorCode } from "../../errors.js";
import type {
  ConnectorScenario,
  FlinkJobScenario,
  RecoveryTrigger,
  Scenario,
  WriterBehaviour,
} from "../scenario/schema.js";
import { parseDuration, resolveRelative } from "../time.js";
import { uuidFrom } from "./ids.js";
import { matchesCommitter, SimTable } from "./table.js";

interface SimTaskState {
  id: number;
  state: string;
  trace?: string;
  workerId: string;
}

export interface SimConnector {
  name: string;
  config: Record<string, string>;
  state: string;
  trace?: string;
  workerId: string;
  tasks: SimTaskState[];
  restartCount: number;
  /** When a restarted but still broken connector's tasks fail again. */
  refailAt?: number;
  failedTrace?: string;
}

export interface SimJob {
  scenario: FlinkJobScenario;
  state: string;
  startedMs: number;
  /** Clock value when the lakehouse started; counters grow from here. */
  baseMs: number;
}

interface WriterState {
  behaviour: WriterBehaviour;
  everyMs: number;
  /** The writer was failing when the scenario starts: its commits after a change are a recovery. */
  failedAtStart: boolean;
  recoveredAt: number | null;
  nextCommitAt: number;
  /** A person fixed the writer outside the bot (a step done by hand): it recovers at the next sync. */
  fixedByHand?: boolean;
}

export interface LakehouseSnapshot {
  nowMs: number;
  tables: {
    name: string;
    uuid: string;
    properties: Record<string, string>;
    snapshotCount: number;
    currentSnapshotId: string | null;
    lastUpdatedMs: number;
    metadataLocation: string;
  }[];
  jobs: { id: string; name: string; state: string }[];
  connectors: { name: string; state: string; tasks: { id: number; state: string }[]; restartCount: number }[];
  writers: {
    table: string;
    committer: string;
    /** Failing when the scenario started (it stalled, or its job or connector shows failures). */
    failedAtStart: boolean;
    recovered: boolean;
    recoveredAtMs: number | null;
  }[];
}

/** Who committed one snapshot, as the simulator knows it. */
export interface SnapshotAuthor {
  timestampMs: number;
  operation: string;
  /** "flink:<job id>", "connect:<connector>", "spark:<app id>" or "anonymous". */
  committer: string;
  /** The declared writer behind it, when the scenario declares one. */
  writer?: { failedAtStart: boolean; recovered: boolean; recoveredAtMs: number | null };
}

export class World {
  readonly scenario: Scenario;
  readonly tables = new Map<string, SimTable>();
  readonly jobs = new Map<string, SimJob>();
  readonly connectors = new Map<string, SimConnector>();
  readonly startMs: number;
  private readonly writers: WriterState[] = [];
  private readonly recreated = new Map<string, number>();

  constructor(scenario: Scenario, nowMs: number) {
    this.scenario = scenario;
    this.startMs = nowMs;
    for (const t of scenario.catalog.tables) {
      const table = new SimTable(t, scenario.catalog.warehouse, nowMs);
      table.addScenarioSnapshots(t, nowMs);
      this.tables.set(t.name, table);
    }
    for (const j of scenario.flink?.jobs ?? []) {
      this.jobs.set(j.id, {
        scenario: j,
        state: j.state,
        startedMs: resolveRelative(j.startedAt, nowMs),
        baseMs: nowMs,
      });
    }
    for (const c of scenario.connect?.connectors ?? []) this.connectors.set(c.name, toConnector(c));
    for (const w of scenario.writers) this.writers.push(this.initWriter(w, nowMs));
  }

  table(name: string): SimTable | undefined {
    return this.tables.get(name);
  }

  /** Drops a table and creates it again under the same name: same settings, a new uuid, no history. */
  recreateTable(name: string, nowMs: number): void {
    const scenario = this.scenario.catalog.tables.find((t) => t.name === name);
    if (!scenario) throw new Error(`no table ${name} in this scenario`);
    const generation = (this.recreated.get(name) ?? 0) + 1;
    this.recreated.set(name, generation);
    const uuid = uuidFrom(`table:${name}:recreated:${generation}`);
    this.tables.set(name, new SimTable({ ...scenario, uuid }, this.scenario.catalog.warehouse, nowMs));
  }

  /** Finds the catalog table a Flink sink reports as e.g. "iceberg.db.events". */
  tableForSinkName(sinkTable: string, jobId: string): SimTable | undefined {
    const writer = this.writers.find(
      (w) => w.behaviour.committer.kind === "flink" && w.behaviour.committer.jobId === jobId,
    );
    if (writer) return this.tables.get(writer.behaviour.table);
    for (const t of this.tables.values()) {
      if (sinkTable === t.fullName || sinkTable.endsWith(`.${t.fullName}`)) return t;
    }
    return undefined;
  }

  /** True once the writer for this Flink job (if any) has recovered or is healthy. */
  jobRecovered(jobId: string): boolean {
    return this.writers.some(
      (w) =>
        w.behaviour.committer.kind === "flink" &&
        w.behaviour.committer.jobId === jobId &&
        w.recoveredAt !== null,
    );
  }

  /** Who committed snapshot `snapshotId` of `table`, and whether that writer had failed and recovered. */
  snapshotAuthor(table: string, snapshotId: string): SnapshotAuthor | undefined {
    const snapshot = this.tables.get(table)?.snapshots.find((s) => s.id.toString() === snapshotId);
    if (!snapshot) return undefined;
    const writer = this.writers.find(
      (w) => w.behaviour.table === table && matchesCommitter(snapshot.summary, w.behaviour.committer),
    );
    const summary = snapshot.summary;
    const committer = summary["flink.job-id"]
      ? `flink:${summary["flink.job-id"]}`
      : summary["kafka.connect.task-id"]
        ? `connect:${summary["kafka.connect.task-id"].replace(/-\d+$/, "")}`
        : summary["spark.app.id"]
          ? `spark:${summary["spark.app.id"]}`
          : writer
            ? describeCommitter(writer.behaviour)
            : "anonymous";
    return {
      timestampMs: snapshot.timestampMs,
      operation: snapshot.operation,
      committer,
      ...(writer
        ? {
            writer: {
              failedAtStart: writer.failedAtStart,
              recovered: writer.recoveredAt !== null,
              recoveredAtMs: writer.recoveredAt,
            },
          }
        : {}),
    };
  }

  /** Brings writers and connectors up to `nowMs`. Call after every change and clock move. */
  sync(nowMs: number): void {
    for (const w of this.writers) {
      if (w.recoveredAt === null && (w.fixedByHand || this.triggerHolds(w.behaviour.recoversWhen))) {
        w.recoveredAt = nowMs;
        w.nextCommitAt = nowMs;
        this.onRecovered(w, nowMs);
      }
      if (w.recoveredAt === null) continue;
      const table = this.tables.get(w.behaviour.table);
      if (!table) continue;
      while (w.nextCommitAt <= nowMs) {
        const last = table.newestBy(w.behaviour.committer);
        table.addSnapshot({
          timestampMs: w.nextCommitAt,
          operation: "append",
          committer: w.behaviour.committer,
          addedDataFiles: Number(last?.summary["added-data-files"] ?? 8),
          addedRecords: Number(last?.summary["added-records"] ?? 20_000),
          deletedDataFiles: 0,
          addedDeleteFiles: 0,
          branch: this.writerBranch(w),
          summary: {},
        });
        w.nextCommitAt += w.everyMs;
      }
    }
    for (const c of this.connectors.values()) {
      if (c.refailAt !== undefined && c.refailAt <= nowMs) {
        c.refailAt = undefined;
        for (const t of c.tasks) {
          t.state = "FAILED";
          t.trace = c.failedTrace;
        }
      }
    }
  }

  /**
   * A person carried out a step by hand (redeployed the job, moved the compaction, ...): every
   * failing writer of the table recovers and commits from now on. Returns how many were failing.
   */
  fixByHand(table: string, nowMs: number): number {
    const failing = this.writers.filter((w) => w.behaviour.table === table && w.recoveredAt === null);
    for (const w of failing) w.fixedByHand = true;
    this.sync(nowMs);
    return failing.length;
  }

  /** Records a restart; returns the status to show in a 202 answer (instances RESTARTING). */
  restartConnector(
    c: SimConnector,
    includeTasks: boolean,
    onlyFailed: boolean,
    nowMs: number,
  ): { connector: boolean; tasks: number[] } {
    return this.restart(
      c,
      !onlyFailed || c.state === "FAILED",
      includeTasks ? c.tasks.filter((t) => !onlyFailed || t.state === "FAILED").map((t) => t.id) : [],
      nowMs,
    );
  }

  /** POST /connectors/{name}/tasks/{id}/restart. */
  restartTask(c: SimConnector, taskId: number, nowMs: number): void {
    this.restart(c, false, [taskId], nowMs);
  }

  private restart(
    c: SimConnector,
    restartConnector: boolean,
    tasks: number[],
    nowMs: number,
  ): { connector: boolean; tasks: number[] } {
    c.restartCount += 1;
    if (restartConnector) {
      c.state = "RUNNING";
      c.trace = undefined;
    }
    const wasFailing = c.tasks.some((t) => tasks.includes(t.id) && t.state === "FAILED");
    for (const t of c.tasks) {
      if (!tasks.includes(t.id)) continue;
      if (t.state === "FAILED") c.failedTrace = t.trace ?? c.failedTrace;
      t.state = "RUNNING";
      t.trace = undefined;
    }
    this.sync(nowMs);
    // A restart alone does not fix a broken writer: its next commit fails the tasks again.
    const writer = this.writers.find(
      (w) => w.behaviour.committer.kind === "connect" && w.behaviour.committer.connector === c.name,
    );
    if (wasFailing && writer && writer.recoveredAt === null) c.refailAt = nowMs + writer.everyMs;
    return { connector: restartConnector, tasks };
  }

  state(nowMs: number): LakehouseSnapshot {
    return {
      nowMs,
      tables: [...this.tables.values()].map((t) => ({
        name: t.fullName,
        uuid: t.uuid,
        properties: { ...t.properties },
        snapshotCount: t.snapshots.length,
        currentSnapshotId: t.currentSnapshotId()?.toString() ?? null,
        lastUpdatedMs: t.lastUpdatedMs,
        metadataLocation: t.metadataLocation(),
      })),
      jobs: [...this.jobs.values()].map((j) => ({
        id: j.scenario.id,
        name: j.scenario.name,
        state: j.state,
      })),
      connectors: [...this.connectors.values()].map((c) => ({
        name: c.name,
        state: c.state,
        tasks: c.tasks.map((t) => ({ id: t.id, state: t.state })),
        restartCount: c.restartCount,
      })),
      writers: this.writers.map((w) => ({
        table: w.behaviour.table,
        committer: describeCommitter(w.behaviour),
        failedAtStart: w.failedAtStart,
        recovered: w.recoveredAt !== null,
        recoveredAtMs: w.recoveredAt,
      })),
    };
  }

  private initWriter(behaviour: WriterBehaviour, nowMs: number): WriterState {
    const table = this.tables.get(behaviour.table);
    if (!table) {
      throw new CodedError(
        ErrorCode.ConfigInvalid,
        `scenario ${this.scenario.name}: writer table "${behaviour.table}" is not in catalog.tables`,
        { hint: "name a table declared under catalog.tables (namespace.table)" },
      );
    }
    const trigger = behaviour.recoversWhen;
    if ("table" in trigger && !this.tables.has(trigger.table)) {
      throw new CodedError(
        ErrorCode.ConfigInvalid,
        `scenario ${this.scenario.name}: writers.recoversWhen.table "${trigger.table}" is not in catalog.tables`,
        { hint: "name a table declared under catalog.tables" },
      );
    }
    if ("connector" in trigger && !this.connectors.has(trigger.connector)) {
      throw new CodedError(
        ErrorCode.ConfigInvalid,
        `scenario ${this.scenario.name}: writers.recoversWhen.connector "${trigger.connector}" is not in connect.connectors`,
        { hint: "name a connector declared under connect.connectors" },
      );
    }
    const everyMs = parseDuration(behaviour.commitEvery);
    const state: WriterState = {
      behaviour,
      everyMs,
      failedAtStart: trigger.when !== "always" || this.showsFailures(behaviour),
      recoveredAt: null,
      nextCommitAt: Number.POSITIVE_INFINITY,
    };
    if (trigger.when === "always") {
      // A healthy writer continues its cadence from its newest snapshot.
      const newest = table.newestBy(behaviour.committer);
      state.recoveredAt = this.startMs;
      // The scenario's snapshots are the truth at start: the next commit lands after now.
      state.nextCommitAt = newest ? newest.timestampMs + everyMs : nowMs + everyMs;
      while (state.nextCommitAt <= nowMs) state.nextCommitAt += everyMs;
    }
    return state;
  }

  /**
   * A writer that commits on but whose job or connector recorded failures (an unknown commit
   * state), or the successor of a failed run: a job of the same name (or the same committer
   * operator uid) that stopped after failing.
   */
  private showsFailures(behaviour: WriterBehaviour): boolean {
    const c = behaviour.committer;
    if (c.kind === "flink") {
      const job = this.jobs.get(c.jobId);
      if (!job) return false;
      if (job.scenario.exceptions.length > 0) return true;
      // The same writer under a new job id: the same name, or the same committer operator uid.
      const sameOperator = (jobId: string) =>
        c.operatorUid !== undefined &&
        this.scenario.catalog.tables.some((t) =>
          t.snapshots.some(
            (e) =>
              e.committer.kind === "flink" &&
              e.committer.jobId === jobId &&
              e.committer.operatorUid === c.operatorUid,
          ),
        );
      return [...this.jobs.values()].some(
        (j) =>
          j !== job &&
          (j.scenario.name === job.scenario.name || sameOperator(j.scenario.id)) &&
          j.state !== "RUNNING" &&
          j.startedMs < job.startedMs &&
          j.scenario.exceptions.length > 0,
      );
    }
    if (c.kind === "connect") {
      const connector = this.connectors.get(c.connector);
      return connector !== undefined && [connector, ...connector.tasks].some((t) => t.state === "FAILED");
    }
    return false;
  }

  private writerBranch(w: WriterState): string {
    const table = this.tables.get(w.behaviour.table);
    if (!table) return "main";
    for (let i = table.snapshots.length - 1; i >= 0; i--) {
      const s = table.snapshots[i];
      if (s && matchesCommitter(s.summary, w.behaviour.committer)) return s.branch;
    }
    return "main";
  }

  private triggerHolds(trigger: RecoveryTrigger): boolean {
    switch (trigger.when) {
      case "never":
        return false;
      case "always":
        return true;
      case "table-property-at-least": {
        const raw = this.tables.get(trigger.table)?.properties[trigger.key];
        return raw !== undefined && Number(raw) >= trigger.value;
      }
      case "table-property-equals":
        return this.tables.get(trigger.table)?.properties[trigger.key] === trigger.value;
      case "connector-restarted":
        return (this.connectors.get(trigger.connector)?.restartCount ?? 0) > 0;
      case "connector-config-at-least": {
        const raw = this.connectors.get(trigger.connector)?.config[trigger.key];
        return raw !== undefined && Number(raw) >= trigger.value;
      }
    }
  }

  private onRecovered(w: WriterState, nowMs: number): void {
    const committer = w.behaviour.committer;
    if (committer.kind === "connect") {
      const c = this.connectors.get(committer.connector);
      if (c) {
        c.state = "RUNNING";
        c.trace = undefined;
        c.refailAt = undefined;
        for (const t of c.tasks) {
          t.state = "RUNNING";
          t.trace = undefined;
        }
      }
    }
    if (committer.kind === "flink") {
      const job = this.jobs.get(committer.jobId);
      if (job && job.state !== "RUNNING") {
        job.state = "RUNNING";
        job.startedMs = nowMs;
      }
    }
  }
}

function toConnector(c: ConnectorScenario): SimConnector {
  return {
    name: c.name,
    config: { ...c.config, name: c.name },
    state: c.state,
    trace: c.trace,
    workerId: c.workerId,
    tasks: c.tasks.map((t) => ({ id: t.id, state: t.state, trace: t.trace, workerId: t.workerId })),
    restartCount: 0,
    failedTrace: c.tasks.find((t) => t.trace)?.trace,
  };
}

function describeCommitter(w: WriterBehaviour): string {
  const c = w.committer;
  switch (c.kind) {
    case "flink":
      return `flink:${c.jobId}`;
    case "spark":
      return `spark:${c.appId}`;
    case "connect":
      return `connect:${c.connector}`;
    case "trino":
      return "trino";
    case "engine":
      return `engine:${c.name}`;
    case "anonymous":
      return "anonymous";
  }
}
