// A simulated Iceberg table: its snapshots, refs, properties and metadata versions. Snapshots are
// immutable once added, so each one's JSON is rendered once and reused on every load.

import type { Committer, TableScenario } from "../scenario/schema.js";
import { parseDuration, resolveRelative } from "../time.js";
import { hex32From, seedFrom, snapshotId, uuidFrom } from "./ids.js";

type SnapshotOperation = "append" | "replace" | "overwrite" | "delete";

export interface NewSnapshot {
  timestampMs: number;
  operation: SnapshotOperation;
  committer: Committer;
  addedDataFiles: number;
  addedRecords: number;
  addedFilesSizeBytes?: number;
  deletedDataFiles: number;
  addedDeleteFiles: number;
  schemaId?: number;
  branch: string;
  summary: Record<string, string>;
}

export interface SimSnapshot {
  id: bigint;
  parentId: bigint | null;
  sequenceNumber: number;
  timestampMs: number;
  branch: string;
  operation: SnapshotOperation;
  summary: Record<string, string>;
  /** Rendered JSON of the snapshot object (ids as exact integers). */
  json: string;
  /** Rendered snapshot-log entry. */
  logJson: string;
}

interface BranchHead {
  id: bigint | null;
  totals: Totals;
}

interface Totals {
  records: number;
  files: number;
  bytes: number;
  deleteFiles: number;
  positionDeletes: number;
  equalityDeletes: number;
}

export interface BranchSpec {
  name: string;
  type: "branch" | "tag";
  maxSnapshotAgeMs?: number;
  minSnapshotsToKeep?: number;
  maxRefAgeMs?: number;
}

const DEFAULT_FIELDS = [
  { name: "event_id", type: "string", required: true },
  { name: "event_ts", type: "timestamptz", required: true },
  { name: "user_id", type: "long", required: false },
  { name: "payload", type: "string", required: false },
];

const ICEBERG_VERSION = "Apache Iceberg 1.10.0 (commit 2114bf631e49af532d66e2ce148ee49dd1dd1f1f)";
const BYTES_PER_FILE = 48 * 1024 * 1024;

function emptyTotals(): Totals {
  return { records: 0, files: 0, bytes: 0, deleteFiles: 0, positionDeletes: 0, equalityDeletes: 0 };
}

/** A UUID-shaped suffix derived from the snapshot id (cheap: no hashing per snapshot). */
function manifestUuid(id: bigint): string {
  const h = (id * 0x9e3779b97f4a7c15n).toString(16).padStart(32, "0").slice(-32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function jsonId(id: bigint | null): string {
  return id === null ? "null" : id.toString();
}

export class SimTable {
  readonly namespace: string[];
  readonly name: string;
  readonly fullName: string;
  readonly uuid: string;
  readonly formatVersion: 1 | 2 | 3;
  readonly location: string;
  readonly properties: Record<string, string>;
  readonly snapshots: SimSnapshot[] = [];
  /** Timestamps of every metadata version written so far (index = version - 1). */
  readonly metadataVersions: number[] = [];
  readonly branchSpecs: BranchSpec[];
  lastUpdatedMs: number;

  private readonly seed: bigint;
  private readonly heads = new Map<string, BranchHead>();
  private readonly checkpointByJob = new Map<string, number>();
  private readonly commitsByJob = new Map<string, number>();
  private readonly schemasJson: string;
  private readonly currentSchemaId: number;
  private readonly lastColumnId: number;
  private readonly specJson: string;
  private readonly lastPartitionId: number;
  private readonly sortJson: string;
  private readonly defaultSortOrderId: number;
  private readonly metadataLogCap: number | undefined;
  private lastSequenceNumber = 0;
  /** Rendered LoadTableResult texts; any change to the table drops them (see touch). */
  private readonly rendered = new Map<string, string>();

  constructor(scenario: TableScenario, warehouse: string, createdMs: number) {
    const parts = scenario.name.split(".");
    this.name = parts.pop() as string;
    this.namespace = parts;
    this.fullName = scenario.name;
    this.uuid = scenario.uuid ?? uuidFrom(`table:${scenario.name}`);
    this.formatVersion = scenario.formatVersion;
    this.location = scenario.location ?? `${warehouse.replace(/\/$/, "")}/${parts.join("/")}/${this.name}`;
    this.properties = { ...scenario.properties };
    this.seed = seedFrom(`snapshots:${scenario.name}`);
    this.lastUpdatedMs = createdMs;
    this.metadataLogCap = scenario.metadataLogEntries;
    this.branchSpecs = scenario.branches.map((b) => ({ ...b }));
    this.heads.set("main", { id: null, totals: emptyTotals() });
    for (const b of this.branchSpecs) this.heads.set(b.name, { id: null, totals: emptyTotals() });

    // Field ids are stable by name across schema versions, as Iceberg assigns them.
    const schemas = scenario.schemas ?? [{ id: 0, fields: DEFAULT_FIELDS }];
    const fieldIds = new Map<string, number>();
    for (const s of schemas)
      for (const f of s.fields) if (!fieldIds.has(f.name)) fieldIds.set(f.name, fieldIds.size + 1);
    this.lastColumnId = fieldIds.size;
    this.currentSchemaId = scenario.currentSchemaId ?? Math.max(...schemas.map((s) => s.id));
    this.schemasJson = JSON.stringify(
      schemas.map((s) => ({
        type: "struct",
        "schema-id": s.id,
        fields: s.fields.map((f) => ({
          id: fieldIds.get(f.name),
          name: f.name,
          required: f.required,
          type: f.type,
        })),
      })),
    );
    const sourceId = (name: string): number => fieldIds.get(name) ?? 1;
    const specFields = scenario.partitionBy.map((p, i) => {
      const base = p.transform.replace(/\[.*$/, "");
      return {
        name: p.transform === "identity" ? p.source : `${p.source}_${base}`,
        transform: p.transform,
        "source-id": sourceId(p.source),
        "field-id": 1000 + i,
      };
    });
    this.lastPartitionId = 999 + specFields.length;
    this.specJson = JSON.stringify([{ "spec-id": 0, fields: specFields }]);
    const sortFields = scenario.sortBy.map((s) => ({
      transform: "identity",
      "source-id": sourceId(s),
      direction: "asc",
      "null-order": "nulls-first",
    }));
    this.defaultSortOrderId = sortFields.length ? 1 : 0;
    this.sortJson = JSON.stringify(
      sortFields.length
        ? [
            { "order-id": 0, fields: [] },
            { "order-id": 1, fields: sortFields },
          ]
        : [{ "order-id": 0, fields: [] }],
    );
    this.metadataVersions.push(createdMs);
  }

  /** Adds scenario snapshots (single entries and series), resolved against `nowMs`, in time order. */
  addScenarioSnapshots(scenario: TableScenario, nowMs: number): void {
    const pending: NewSnapshot[] = [];
    for (const entry of scenario.snapshots) {
      const base = {
        operation: entry.operation,
        committer: entry.committer,
        addedDataFiles: entry.addedDataFiles,
        addedRecords: entry.addedRecords,
        addedFilesSizeBytes: entry.addedFilesSizeBytes,
        deletedDataFiles: entry.deletedDataFiles,
        addedDeleteFiles: entry.addedDeleteFiles,
        schemaId: entry.schemaId,
        branch: entry.branch,
        summary: entry.summary,
      };
      if ("series" in entry) {
        const from = resolveRelative(entry.series.from, nowMs);
        const to = resolveRelative(entry.series.to, nowMs);
        const every = parseDuration(entry.series.every);
        if (every <= 0) continue;
        for (let t = from; t <= to; t += every) pending.push({ ...base, timestampMs: t });
      } else {
        pending.push({ ...base, timestampMs: resolveRelative(entry.at, nowMs) });
      }
    }
    pending.sort((a, b) => a.timestampMs - b.timestampMs);
    const metadataChanges = scenario.metadataChanges
      .map((at) => resolveRelative(at, nowMs))
      .sort((a, b) => a - b);
    const first = pending[0];
    if ((first || scenario.createdAt !== undefined) && this.snapshots.length === 0) {
      // The table was created a little before its first snapshot, unless the scenario says when.
      const created =
        scenario.createdAt !== undefined
          ? resolveRelative(scenario.createdAt, nowMs)
          : first!.timestampMs - 600_000;
      this.metadataVersions[0] = created;
      this.lastUpdatedMs = created;
    }
    for (const s of pending) {
      while (metadataChanges.length > 0 && (metadataChanges[0] as number) < s.timestampMs) {
        this.touch(metadataChanges.shift() as number);
      }
      this.addSnapshot(s);
    }
    for (const at of metadataChanges) this.touch(at);
    if (scenario.expiredBefore !== undefined)
      this.expireBefore(resolveRelative(scenario.expiredBefore, nowMs));
    if (scenario.lastUpdated !== undefined) {
      this.touch(Math.max(this.lastUpdatedMs, resolveRelative(scenario.lastUpdated, nowMs)));
    }
  }

  /** Newest snapshot whose summary says it came from `committer`, if any. */
  newestBy(committer: Committer): SimSnapshot | undefined {
    for (let i = this.snapshots.length - 1; i >= 0; i--) {
      const s = this.snapshots[i] as SimSnapshot;
      if (matchesCommitter(s.summary, committer)) return s;
    }
    return undefined;
  }

  /** The snapshot a ref points at; a declared branch without its own commits points at main's. */
  currentSnapshotId(ref = "main"): bigint | null {
    const own = this.heads.get(ref)?.id ?? null;
    if (own !== null || ref === "main") return own;
    return this.branchSpecs.some((b) => b.name === ref) ? (this.heads.get("main")?.id ?? null) : null;
  }

  addSnapshot(input: NewSnapshot): SimSnapshot {
    const head = this.heads.get(input.branch) ?? { id: this.currentSnapshotId(), totals: emptyTotals() };
    const mainHead = this.heads.get("main") as BranchHead;
    // A branch without its own snapshots forks from main's current state.
    const parentId = head.id ?? (input.branch === "main" ? null : mainHead.id);
    const totals = { ...(head.id === null && input.branch !== "main" ? mainHead.totals : head.totals) };
    const id = snapshotId(this.seed, this.snapshots.length);
    const seq = ++this.lastSequenceNumber;
    const bytes = input.addedFilesSizeBytes ?? input.addedDataFiles * BYTES_PER_FILE;
    const summary: Record<string, string> = { operation: input.operation };
    const removedFiles = Math.min(input.deletedDataFiles, totals.files);
    const removedRecords = totals.files > 0 ? Math.round((totals.records * removedFiles) / totals.files) : 0;
    const removedBytes = totals.files > 0 ? Math.round((totals.bytes * removedFiles) / totals.files) : 0;
    if (input.addedDataFiles > 0) {
      summary["added-data-files"] = String(input.addedDataFiles);
      summary["added-records"] = String(input.addedRecords);
      summary["added-files-size"] = String(bytes);
    }
    if (removedFiles > 0) {
      summary["deleted-data-files"] = String(removedFiles);
      summary["deleted-records"] = String(removedRecords);
      summary["removed-files-size"] = String(removedBytes);
    }
    if (input.addedDeleteFiles > 0) {
      summary["added-delete-files"] = String(input.addedDeleteFiles);
      summary["added-position-delete-files"] = String(input.addedDeleteFiles);
      summary["added-position-deletes"] = String(input.addedDeleteFiles * 500);
    }
    summary["changed-partition-count"] = String(
      Math.max(1, Math.min(input.addedDataFiles || removedFiles, 4)),
    );
    // A replace rewrites files: records stay, so added records replace the removed ones.
    const recordsDelta =
      input.operation === "replace"
        ? 0
        : (input.addedDataFiles > 0 ? input.addedRecords : 0) - removedRecords;
    totals.records = Math.max(0, totals.records + recordsDelta);
    totals.files += input.addedDataFiles - removedFiles;
    totals.bytes = Math.max(0, totals.bytes + bytes - removedBytes);
    totals.deleteFiles += input.addedDeleteFiles;
    totals.positionDeletes += input.addedDeleteFiles * 500;
    summary["total-records"] = String(totals.records);
    summary["total-files-size"] = String(totals.bytes);
    summary["total-data-files"] = String(totals.files);
    summary["total-delete-files"] = String(totals.deleteFiles);
    summary["total-position-deletes"] = String(totals.positionDeletes);
    summary["total-equality-deletes"] = String(totals.equalityDeletes);
    Object.assign(summary, this.committerSummary(input.committer, input.timestampMs), input.summary);

    const manifestList = `${this.location}/metadata/snap-${id}-1-${manifestUuid(id)}.avro`;
    const parts = [`"snapshot-id":${id}`];
    if (parentId !== null) parts.push(`"parent-snapshot-id":${jsonId(parentId)}`);
    if (this.formatVersion >= 2) parts.push(`"sequence-number":${seq}`);
    parts.push(`"timestamp-ms":${input.timestampMs}`);
    parts.push(`"manifest-list":${JSON.stringify(manifestList)}`);
    parts.push(`"summary":${JSON.stringify(summary)}`);
    parts.push(`"schema-id":${input.schemaId ?? this.currentSchemaId}`);
    const snapshot: SimSnapshot = {
      id,
      parentId,
      sequenceNumber: seq,
      timestampMs: input.timestampMs,
      branch: input.branch,
      operation: input.operation,
      summary,
      json: `{${parts.join(",")}}`,
      logJson: `{"timestamp-ms":${input.timestampMs},"snapshot-id":${id}}`,
    };
    this.snapshots.push(snapshot);
    this.heads.set(input.branch, { id, totals });
    this.touch(input.timestampMs);
    return snapshot;
  }

  /** Applies a property change as a new metadata version. */
  updateProperties(set: Record<string, string>, remove: string[], atMs: number): void {
    for (const k of remove) delete this.properties[k];
    Object.assign(this.properties, set);
    this.touch(atMs);
  }

  metadataLocation(): string {
    return this.metadataFile(this.metadataVersions.length);
  }

  /** The LoadTableResult JSON text; snapshot ids are written as exact 64-bit integers. */
  loadResultJson(options: { refsOnly?: boolean } = {}): string {
    // Large histories take seconds to render; a table that has not changed renders the same text.
    const key = options.refsOnly ? "refs" : "all";
    const cached = this.rendered.get(key);
    if (cached !== undefined) return cached;
    const text = this.renderLoadResult(options);
    this.rendered.set(key, text);
    return text;
  }

  private renderLoadResult(options: { refsOnly?: boolean }): string {
    const current = this.currentSnapshotId();
    const refs: string[] = [];
    if (current !== null) refs.push(`"main":{"snapshot-id":${current},"type":"branch"}`);
    for (const b of this.branchSpecs) {
      const id = this.currentSnapshotId(b.name);
      if (id === null) continue;
      const extra: string[] = [];
      if (b.maxSnapshotAgeMs !== undefined) extra.push(`"max-snapshot-age-ms":${b.maxSnapshotAgeMs}`);
      if (b.minSnapshotsToKeep !== undefined) extra.push(`"min-snapshots-to-keep":${b.minSnapshotsToKeep}`);
      if (b.maxRefAgeMs !== undefined) extra.push(`"max-ref-age-ms":${b.maxRefAgeMs}`);
      refs.push(
        `${JSON.stringify(b.name)}:{"snapshot-id":${id},"type":"${b.type}"${extra.map((e) => `,${e}`).join("")}}`,
      );
    }
    const snapshotLog: string[] = [];
    const snapshotJson: string[] = new Array(this.snapshots.length);
    for (let i = 0; i < this.snapshots.length; i++) {
      const s = this.snapshots[i] as SimSnapshot;
      snapshotJson[i] = s.json;
      if (s.branch === "main") snapshotLog.push(s.logJson);
    }
    if (options.refsOnly) {
      // ?snapshots=refs: only the snapshots that a branch or tag points at.
      const wanted = new Set([current, ...this.branchSpecs.map((b) => this.currentSnapshotId(b.name))]);
      snapshotJson.length = 0;
      for (const s of this.snapshots) if (wanted.has(s.id)) snapshotJson.push(s.json);
    }
    const metadataLog: string[] = [];
    const cap = this.metadataLogCap ?? Number(this.properties["write.metadata.previous-versions-max"] ?? 100);
    const previous = this.metadataVersions.length - 1;
    for (let v = Math.max(1, previous - cap + 1); v <= previous; v++) {
      metadataLog.push(
        `{"timestamp-ms":${this.metadataVersions[v - 1]},"metadata-file":${JSON.stringify(this.metadataFile(v))}}`,
      );
    }
    const meta = [
      `"format-version":${this.formatVersion}`,
      `"table-uuid":"${this.uuid}"`,
      `"location":${JSON.stringify(this.location)}`,
      ...(this.formatVersion >= 2 ? [`"last-sequence-number":${this.lastSequenceNumber}`] : []),
      `"last-updated-ms":${this.lastUpdatedMs}`,
      `"last-column-id":${this.lastColumnId}`,
      `"current-schema-id":${this.currentSchemaId}`,
      `"schemas":${this.schemasJson}`,
      `"default-spec-id":0`,
      `"partition-specs":${this.specJson}`,
      `"last-partition-id":${this.lastPartitionId}`,
      `"default-sort-order-id":${this.defaultSortOrderId}`,
      `"sort-orders":${this.sortJson}`,
      `"properties":${JSON.stringify(this.properties)}`,
      ...(current !== null ? [`"current-snapshot-id":${current}`] : []),
      `"refs":{${refs.join(",")}}`,
      `"snapshots":[${snapshotJson.join(",")}]`,
      `"statistics":[]`,
      `"snapshot-log":[${snapshotLog.join(",")}]`,
      `"metadata-log":[${metadataLog.join(",")}]`,
    ];
    return `{"metadata-location":${JSON.stringify(this.metadataLocation())},"metadata":{${meta.join(",")}},"config":{}}`;
  }

  /** Drops snapshots older than `cutoffMs` as expire_snapshots would; branch heads are kept. */
  private expireBefore(cutoffMs: number): void {
    const heads = new Set([...this.heads.values()].map((h) => h.id));
    for (let i = this.snapshots.length - 1; i >= 0; i--) {
      const s = this.snapshots[i] as SimSnapshot;
      if (s.timestampMs < cutoffMs && !heads.has(s.id)) this.snapshots.splice(i, 1);
    }
    this.rendered.clear();
  }

  private touch(atMs: number): void {
    this.rendered.clear();
    this.lastUpdatedMs = Math.max(this.lastUpdatedMs, atMs);
    this.metadataVersions.push(atMs);
  }

  private metadataFile(version: number): string {
    const padded = String(version).padStart(5, "0");
    return `${this.location}/metadata/${padded}-${uuidFrom(`${this.fullName}:v${version}`)}.metadata.json`;
  }

  /** The keys each generation of the Connect sink writes (see core/attribution/keys.ts for the sources). */
  private connectSummary(
    committer: Extract<Committer, { kind: "connect" }>,
    timestampMs: number,
  ): Record<string, string> {
    const commitId = uuidFrom(`commit:${committer.connector}:${timestampMs}`);
    const offsets = JSON.stringify({ "0": this.snapshots.length * 11 + 7 });
    const validThrough = timestampMs - 1_500;
    const tabular = committer.sink.startsWith("tabular");
    return {
      [committer.sink === "tabular-0.4" || committer.sink === "tabular-0.3"
        ? "kafka.connect.commitId"
        : "kafka.connect.commit-id"]: commitId,
      ...(committer.sink === "iceberg"
        ? { "kafka.connect.task-id": `${committer.connector}-${committer.taskId}` }
        : {}),
      ...(tabular
        ? { "kafka.connect.vtts": String(validThrough) }
        : { "kafka.connect.valid-through-ts": new Date(validThrough).toISOString().replace("Z", "+00:00") }),
      [committer.sink === "tabular-0.3"
        ? "kafka.connect.control.offsets.control-iceberg"
        : `kafka.connect.offsets.control-iceberg.${connectGroup(committer)}`]: offsets,
      "iceberg-version": ICEBERG_VERSION,
    };
  }

  private committerSummary(committer: Committer, timestampMs: number): Record<string, string> {
    switch (committer.kind) {
      case "flink": {
        // Several committers inside one job commit the same checkpoint id more than once.
        const count = (this.commitsByJob.get(committer.jobId) ?? 0) + 1;
        this.commitsByJob.set(committer.jobId, count);
        const per = committer.commitsPerCheckpoint ?? 1;
        const previous = this.checkpointByJob.get(committer.jobId) ?? committer.checkpointStart - 1;
        const next = (count - 1) % per === 0 ? previous + 1 : previous;
        this.checkpointByJob.set(committer.jobId, next);
        return {
          "flink.job-id": committer.jobId,
          "flink.operator-id": hex32From(`operator:${committer.operatorUid ?? committer.jobId}:committer`),
          "flink.max-committed-checkpoint-id": String(next),
          "engine-name": "flink",
          "engine-version": "1.20.1",
          "iceberg-version": ICEBERG_VERSION,
        };
      }
      case "spark":
        return {
          "spark.app.id": committer.appId,
          ...(committer.streamingQueryId
            ? {
                "spark.sql.streaming.queryId": committer.streamingQueryId,
                "spark.sql.streaming.epochId": String(this.snapshots.length),
              }
            : {}),
          "engine-name": "spark",
          "engine-version": "3.5.4",
          "iceberg-version": ICEBERG_VERSION,
          "app-id": committer.appId,
        };
      case "connect":
        return this.connectSummary(committer, timestampMs);
      case "trino":
        return {
          // Trino's query id: date, time, sequence and the coordinator's id.
          trino_query_id: `${new Date(timestampMs).toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "_")}_${String(this.snapshots.length % 100_000).padStart(5, "0")}_sim01`,
          "iceberg-version": ICEBERG_VERSION,
        };
      case "engine":
        return {
          "engine-name": committer.name,
          ...(committer.version ? { "engine-version": committer.version } : {}),
          "iceberg-version": ICEBERG_VERSION,
        };
      case "anonymous":
        return {};
    }
  }
}

/** The consumer group a simulated connector's offsets key names. */
function connectGroup(committer: Extract<Committer, { kind: "connect" }>): string {
  if (committer.group) return committer.group;
  return committer.sink.startsWith("tabular")
    ? `cg-control-${committer.connector}`
    : `connect-${committer.connector}`;
}

/** True when a snapshot summary carries the identity of that committer. */
export function matchesCommitter(summary: Record<string, string>, committer: Committer): boolean {
  switch (committer.kind) {
    case "flink":
      return summary["flink.job-id"] === committer.jobId;
    case "spark":
      return summary["spark.app.id"] === committer.appId;
    case "connect":
      if (committer.sink === "iceberg")
        return (summary["kafka.connect.task-id"] ?? "").startsWith(`${committer.connector}-`);
      if (committer.sink === "tabular-0.3") return "kafka.connect.control.offsets.control-iceberg" in summary;
      return `kafka.connect.offsets.control-iceberg.${connectGroup(committer)}` in summary;
    case "trino":
      return "trino_query_id" in summary;
    case "engine":
      return (
        summary["engine-name"] === committer.name && !summary["flink.job-id"] && !summary["spark.app.id"]
      );
    case "anonymous":
      return (
        !summary["flink.job-id"] &&
        !summary["spark.app.id"] &&
        !summary["kafka.connect.task-id"] &&
        !summary["kafka.connect.commit-id"] &&
        !summary["engine-name"]
      );
  }
}
