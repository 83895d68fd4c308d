import { describe, expect, it } from "vitest";
import { TableMetadataSchema, toTableEvidence } from "../../../src/adapters/evidence/iceberg-schemas.js";

const ref = { namespace: ["db"], name: "events" };

function v2(overrides: Record<string, unknown> = {}) {
  return {
    "format-version": 2,
    "table-uuid": "7d8f1c2e-5a4b-4c3d-9e8f-1a2b3c4d5e6f",
    location: "s3://lake/db/events",
    "last-updated-ms": 3000,
    "last-column-id": 2,
    "current-schema-id": 1,
    schemas: [
      { type: "struct", "schema-id": 0, fields: [{ id: 1, name: "a", type: "long", required: true }] },
      {
        type: "struct",
        "schema-id": 1,
        fields: [
          { id: 1, name: "a", type: "long", required: true },
          { id: 2, name: "b", type: "string", required: false },
        ],
      },
    ],
    "default-spec-id": 1,
    "partition-specs": [
      { "spec-id": 0, fields: [] },
      {
        "spec-id": 1,
        fields: [{ name: "a_bucket", transform: "bucket[16]", "source-id": 1, "field-id": 1000 }],
      },
    ],
    "default-sort-order-id": 0,
    "sort-orders": [{ "order-id": 0, fields: [] }],
    properties: { "commit.retry.num-retries": "4" },
    "current-snapshot-id": "3497810964824022504",
    snapshots: [
      {
        "snapshot-id": "3497810964824022504",
        "parent-snapshot-id": 7,
        "sequence-number": 2,
        "timestamp-ms": 2000,
        summary: { operation: "append", "flink.job-id": "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b" },
        "schema-id": 1,
      },
      { "snapshot-id": 7, "sequence-number": 1, "timestamp-ms": 1000, summary: { operation: "replace" } },
    ],
    "snapshot-log": [{ "snapshot-id": 7, "timestamp-ms": 1000 }],
    "metadata-log": [{ "metadata-file": "s3://lake/db/events/metadata/00001.json", "timestamp-ms": 1000 }],
    refs: {
      main: { "snapshot-id": "3497810964824022504", type: "branch" },
      audit: { "snapshot-id": 7, type: "tag", "max-ref-age-ms": 5 },
    },
    ...overrides,
  };
}

describe("toTableEvidence", () => {
  it("translates v2 metadata: ids as strings, snapshots oldest first, default spec and schema", () => {
    const evidence = toTableEvidence(ref, TableMetadataSchema.parse(v2()), "s3://m.json");
    expect(evidence.currentSnapshotId).toBe("3497810964824022504");
    expect(evidence.snapshots.map((s) => s.snapshotId)).toEqual(["7", "3497810964824022504"]);
    expect(evidence.snapshots[1]).toMatchObject({ parentSnapshotId: "7", operation: "append", schemaId: 1 });
    expect(evidence.partitionFields).toEqual(["a_bucket"]);
    expect(evidence.schemas).toEqual([
      { schemaId: 0, fieldCount: 1 },
      { schemaId: 1, fieldCount: 2 },
    ]);
    expect(evidence.currentSchemaId).toBe(1);
    expect(evidence.refs.audit).toEqual({ snapshotId: "7", type: "tag", maxRefAgeMs: 5 });
    expect(evidence.metadataLocation).toBe("s3://m.json");
    expect(evidence.properties["commit.retry.num-retries"]).toBe("4");
  });

  it("reads v1 metadata: single schema, partition-spec list, -1 as no snapshot, no summary", () => {
    const v1 = {
      "format-version": 1,
      location: "s3://lake/db/events",
      "last-updated-ms": 10,
      schema: { type: "struct", fields: [{ id: 1, name: "x", type: "long", required: true }] },
      "partition-spec": [{ name: "x", transform: "identity", "source-id": 1, "field-id": 1000 }],
      "current-snapshot-id": -1,
      snapshots: [{ "snapshot-id": 1, "timestamp-ms": 5, "manifest-list": "s3://l.avro" }],
    };
    const evidence = toTableEvidence(ref, TableMetadataSchema.parse(v1));
    expect(evidence.currentSnapshotId).toBe(undefined);
    expect(evidence.refs).toEqual({});
    expect(evidence.uuid).toBe("");
    expect(evidence.partitionFields).toEqual(["x"]);
    expect(evidence.schemas).toEqual([{ schemaId: 0, fieldCount: 1 }]);
    expect(evidence.snapshots[0]?.operation).toBe("unknown");
    expect(evidence.properties).toEqual({});
  });

  it("treats a missing refs map as main at the current snapshot", () => {
    const evidence = toTableEvidence(ref, TableMetadataSchema.parse(v2({ refs: undefined })));
    expect(evidence.refs).toEqual({ main: { snapshotId: "3497810964824022504", type: "branch" } });
  });

  it("rejects metadata without a location and names the field", () => {
    const result = TableMetadataSchema.safeParse(v2({ location: undefined }));
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["location"]);
  });
});
