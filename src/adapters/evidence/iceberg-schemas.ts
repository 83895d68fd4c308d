// Iceberg REST shapes (catalog config, listings, table metadata v1/v2/v3) and their translation
// into TableEvidence. Only the fields the bot reads are checked; everything else passes by. The
// listing and token schemas are built on their first parse (z.lazy): a diagnosis reads neither.

import { z } from "zod";
import type {
  MetadataLogEntry,
  SchemaInfo,
  Snapshot,
  SnapshotLogEntry,
  SnapshotRef,
  TableEvidence,
  TableRef,
} from "../../core/evidence/model.js";
import { isRecord } from "./upstream-error.js";

/**
 * A snapshot id: a string (quoted by protectSnapshotIds or by the catalog) or a bare integer,
 * which is short enough to have survived JSON.parse exactly (longer ones were quoted).
 */
const SnapshotIdSchema = z.union([
  z.string().regex(/^-?\d+$/, "a snapshot id (digits)"),
  z
    .number()
    .refine(Number.isInteger, "a snapshot id (an integer)")
    .transform((n) => String(n)),
]);

const StringMapSchema = z.record(z.string(), z.string());

export const CatalogConfigSchema = z.object({
  defaults: StringMapSchema.default({}),
  overrides: StringMapSchema.default({}),
  endpoints: z.array(z.string()).optional(),
});

export const ListNamespacesSchema = z.lazy(() =>
  z.object({
    namespaces: z.array(z.array(z.string())),
    "next-page-token": z.string().nullish(),
  }),
);

export const ListTablesSchema = z.lazy(() =>
  z.object({
    identifiers: z.array(z.object({ namespace: z.array(z.string()), name: z.string() })),
    "next-page-token": z.string().nullish(),
  }),
);

export const OAuthTokenSchema = z.lazy(() =>
  z.object({
    access_token: z.string().min(1),
    token_type: z.string(),
    expires_in: z.number().positive().optional(),
  }),
);

type Issue = { path: (string | number)[]; message: string };

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);
const isSnapshotId = (v: unknown): v is string | number =>
  (typeof v === "string" && /^-?\d+$/.test(v)) || (typeof v === "number" && Number.isInteger(v));

/** Snapshot ids as read: quoted digits kept as they are, short (exact) numbers written out. */
const idOf = (value: string | number): string => (typeof value === "number" ? String(value) : value);

/**
 * Tables with long histories carry 100,000 snapshots and more: each one is checked and translated
 * in the same visit, without the per-item schema run and copy of a zod array, and with zod-style
 * issue paths (snapshots.5.timestamp-ms) so an error still names the field.
 */
function readSnapshots(list: readonly unknown[], issues: Issue[]): Snapshot[] {
  const out: Snapshot[] = new Array(list.length);
  // Catalogs list snapshots in commit order: sorting is only needed when they did not.
  let ordered = true;
  let lastMs = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < list.length && issues.length < 10; i++) {
    const s = list[i];
    if (!isRecord(s)) {
      issues.push({ path: [i], message: "expected an object" });
      continue;
    }
    const id = s["snapshot-id"];
    const parent = s["parent-snapshot-id"];
    const timestampMs = s["timestamp-ms"];
    const sequenceNumber = s["sequence-number"];
    const schemaId = s["schema-id"];
    const summary = s.summary;
    const before = issues.length;
    if (!isSnapshotId(id)) issues.push({ path: [i, "snapshot-id"], message: "expected a snapshot id" });
    if (parent !== undefined && parent !== null && !isSnapshotId(parent))
      issues.push({ path: [i, "parent-snapshot-id"], message: "expected a snapshot id" });
    if (!isInt(timestampMs)) issues.push({ path: [i, "timestamp-ms"], message: "expected an integer" });
    if (sequenceNumber !== undefined && !isInt(sequenceNumber))
      issues.push({ path: [i, "sequence-number"], message: "expected an integer" });
    if (schemaId !== undefined && !isInt(schemaId))
      issues.push({ path: [i, "schema-id"], message: "expected an integer" });
    // Required from v2 on; v1 writers may omit it.
    if (summary !== undefined && !isRecord(summary))
      issues.push({ path: [i, "summary"], message: "expected an object of summary fields" });
    if (issues.length > before) continue;
    if ((timestampMs as number) < lastMs) ordered = false;
    lastMs = timestampMs as number;
    const strings = stringSummary((summary ?? {}) as Record<string, unknown>);
    out[i] = {
      snapshotId: idOf(id as string | number),
      parentSnapshotId:
        parent === null || parent === undefined
          ? undefined
          : snapshotIdOrNone(idOf(parent as string | number)),
      sequenceNumber: sequenceNumber as number | undefined,
      timestampMs: timestampMs as number,
      // v1 snapshots may lack a summary; "unknown" keeps rules from guessing an operation.
      operation: strings.operation ?? "unknown",
      summary: strings,
      schemaId: schemaId as number | undefined,
    };
  }
  return ordered ? out : out.sort((a, b) => a.timestampMs - b.timestampMs);
}

function readSnapshotLog(list: readonly unknown[], issues: Issue[]): SnapshotLogEntry[] {
  const out: SnapshotLogEntry[] = new Array(list.length);
  for (let i = 0; i < list.length && issues.length < 10; i++) {
    const e = list[i];
    if (!isRecord(e)) {
      issues.push({ path: [i], message: "expected an object" });
      continue;
    }
    const id = e["snapshot-id"];
    const timestampMs = e["timestamp-ms"];
    const before = issues.length;
    if (!isSnapshotId(id)) issues.push({ path: [i, "snapshot-id"], message: "expected a snapshot id" });
    if (!isInt(timestampMs)) issues.push({ path: [i, "timestamp-ms"], message: "expected an integer" });
    if (issues.length === before)
      out[i] = { snapshotId: idOf(id as string | number), timestampMs: timestampMs as number };
  }
  return out;
}

/**
 * A list read by `read` into evidence as it is checked; absent means empty. Its issues are
 * reported under the list's own key, as a zod array's would be.
 */
function readList<T>(read: (list: readonly unknown[], issues: Issue[]) => T[]) {
  return z
    .unknown()
    .optional()
    .transform((value, ctx): T[] => {
      if (value === undefined) return [];
      if (!Array.isArray(value)) {
        ctx.addIssue({ code: "custom", message: "Invalid input: expected array" });
        return z.NEVER;
      }
      const issues: Issue[] = [];
      const out = read(value, issues);
      for (const issue of issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
      return issues.length > 0 ? z.NEVER : out;
    });
}

const MetadataLogSchema = z.object({ "metadata-file": z.string(), "timestamp-ms": z.number().int() });

const RefSchema = z.object({
  "snapshot-id": SnapshotIdSchema,
  type: z.enum(["branch", "tag"]),
  "max-ref-age-ms": z.number().int().optional(),
  "max-snapshot-age-ms": z.number().int().optional(),
  "min-snapshots-to-keep": z.number().int().optional(),
});

const SchemaSchema = z.object({
  "schema-id": z.number().int().optional(),
  fields: z.array(z.object({ name: z.string() })),
});

const PartitionFieldSchema = z.object({ name: z.string() });
const PartitionSpecSchema = z.object({ "spec-id": z.number().int(), fields: z.array(PartitionFieldSchema) });
const SortOrderSchema = z.object({ "order-id": z.number().int(), fields: z.array(z.unknown()) });

export const TableMetadataSchema = z.object({
  "format-version": z.number().int().min(1).max(3),
  // Optional in v1 only; later versions always carry it.
  "table-uuid": z.string().optional(),
  location: z.string(),
  "last-updated-ms": z.number().int(),
  properties: StringMapSchema.default({}),
  "current-snapshot-id": SnapshotIdSchema.nullish(),
  snapshots: readList(readSnapshots),
  "snapshot-log": readList(readSnapshotLog),
  "metadata-log": z.array(MetadataLogSchema).default([]),
  refs: z.record(z.string(), RefSchema).optional(),
  "current-schema-id": z.number().int().optional(),
  schemas: z.array(SchemaSchema).optional(),
  schema: SchemaSchema.optional(),
  "default-spec-id": z.number().int().optional(),
  "partition-specs": z.array(PartitionSpecSchema).optional(),
  "partition-spec": z.array(PartitionFieldSchema).optional(),
  "default-sort-order-id": z.number().int().optional(),
  "sort-orders": z.array(SortOrderSchema).optional(),
  // Our catalog fetch copies LoadTableResult's metadata-location in here.
  "metadata-location": z.string().optional(),
});

export type TableMetadata = z.infer<typeof TableMetadataSchema>;

export const LoadTableResultSchema = z.object({
  "metadata-location": z.string().optional(),
  metadata: TableMetadataSchema,
  config: StringMapSchema.optional(),
});

/** Translates parsed table metadata into the evidence model. */
export function toTableEvidence(
  ref: TableRef,
  metadata: TableMetadata,
  metadataLocation?: string,
): TableEvidence {
  const schemas = schemasOf(metadata);
  const currentSchemaId = metadata["current-schema-id"] ?? schemas[0]?.schemaId ?? 0;
  const currentSnapshotId = snapshotIdOrNone(metadata["current-snapshot-id"]);
  const partitionFields = partitionFieldsOf(metadata);
  return {
    ref,
    uuid: metadata["table-uuid"] ?? "",
    formatVersion: metadata["format-version"],
    location: metadata.location,
    metadataLocation: metadataLocation ?? metadata["metadata-location"],
    lastUpdatedMs: metadata["last-updated-ms"],
    currentSnapshotId,
    snapshots: metadata.snapshots,
    snapshotLog: metadata["snapshot-log"],
    metadataLog: metadata["metadata-log"].map(
      (e): MetadataLogEntry => ({ metadataFile: e["metadata-file"], timestampMs: e["timestamp-ms"] }),
    ),
    refs: refsOf(metadata, currentSnapshotId),
    properties: { ...metadata.properties },
    currentSchemaId,
    schemas,
    partitionFieldCount: partitionFields.length,
    partitionFields,
    sortOrderFieldCount: sortOrderFieldCount(metadata),
  };
}

/** Summary values are strings by the spec; the freshly parsed object is kept when they all are. */
function stringSummary(raw: Record<string, unknown>): Record<string, string> {
  for (const key in raw) {
    if (typeof raw[key] !== "string") {
      const copy: Record<string, string> = {};
      for (const [k, value] of Object.entries(raw)) {
        if (value !== null && value !== undefined) copy[k] = String(value);
      }
      return copy;
    }
  }
  return raw as Record<string, string>;
}

/** -1 is how v1 metadata says "no snapshot". */
function snapshotIdOrNone(id: string | null | undefined): string | undefined {
  return id === null || id === undefined || id === "-1" ? undefined : id;
}

function schemasOf(metadata: TableMetadata): SchemaInfo[] {
  const list = metadata.schemas ?? (metadata.schema ? [metadata.schema] : []);
  return list.map((s, index) => ({ schemaId: s["schema-id"] ?? index, fieldCount: s.fields.length }));
}

function partitionFieldsOf(metadata: TableMetadata): string[] {
  const specs = metadata["partition-specs"];
  if (specs && specs.length > 0) {
    const wanted = metadata["default-spec-id"];
    const spec = specs.find((s) => s["spec-id"] === wanted) ?? specs[specs.length - 1];
    return spec ? spec.fields.map((f) => f.name) : [];
  }
  return (metadata["partition-spec"] ?? []).map((f) => f.name);
}

function sortOrderFieldCount(metadata: TableMetadata): number {
  const orders = metadata["sort-orders"] ?? [];
  const wanted = metadata["default-sort-order-id"];
  const order = orders.find((o) => o["order-id"] === wanted);
  return order ? order.fields.length : 0;
}

function refsOf(metadata: TableMetadata, currentSnapshotId: string | undefined): Record<string, SnapshotRef> {
  const out: Record<string, SnapshotRef> = {};
  for (const [name, ref] of Object.entries(metadata.refs ?? {})) {
    out[name] = {
      snapshotId: ref["snapshot-id"],
      type: ref.type,
      maxRefAgeMs: ref["max-ref-age-ms"],
      maxSnapshotAgeMs: ref["max-snapshot-age-ms"],
      minSnapshotsToKeep: ref["min-snapshots-to-keep"],
    };
  }
  // Old metadata without refs: the spec says main is the current snapshot.
  if (!metadata.refs && currentSnapshotId !== undefined) {
    out.main = { snapshotId: currentSnapshotId, type: "branch" };
  }
  return out;
}
