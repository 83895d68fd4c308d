import { describe, expect, it } from "vitest";
import { World } from "../../../src/sim/model/world.js";
import { ScenarioSchema } from "../../../src/sim/scenario/schema.js";
import { generateTableMetadataJson } from "../../../src/sim/table-metadata.js";

const NOW = 1_800_000_000_000;
const JOB = "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b";

function ids(text: string, key: string): bigint[] {
  return [...text.matchAll(new RegExp(`"${key}":(\\d+)`, "g"))].map((m) => BigInt(m[1] as string));
}

describe("generated table metadata", () => {
  // The benchmark drives 100,000 snapshots; 20,000 keep this test quick while covering the same paths.
  it("renders 20,000 snapshots with exact, unique 64-bit ids and an unbroken parent chain", () => {
    const text = generateTableMetadataJson(
      {
        name: "db.big",
        snapshots: [
          {
            series: { from: "-19999m", to: "0", every: "1m" },
            operation: "append",
            committer: { kind: "flink", jobId: JOB },
          },
        ],
      },
      NOW,
    );
    const parsed = JSON.parse(text) as {
      metadata: {
        snapshots: { summary: Record<string, string> }[];
        "snapshot-log": unknown[];
        "metadata-log": unknown[];
      };
    };
    expect(parsed.metadata.snapshots).toHaveLength(20_000);
    expect(parsed.metadata["snapshot-log"]).toHaveLength(20_000);
    expect(parsed.metadata["metadata-log"]).toHaveLength(100);
    const snapshotIds = ids(text, "snapshot-id").slice(1, 20_001); // skip the ref's copy of the current id
    expect(new Set(snapshotIds.map(String)).size).toBe(20_000);
    expect(snapshotIds.every((id) => id > 2n ** 53n && id < 2n ** 63n)).toBe(true);
    const parents = ids(text, "parent-snapshot-id");
    expect(parents).toHaveLength(19_999);
    expect(parents[500]).toBe(snapshotIds[500]);
    const last = parsed.metadata.snapshots[19_999]?.summary;
    expect(last?.["flink.max-committed-checkpoint-id"]).toBe("20000");
    expect(last?.["total-data-files"]).toBe(String(8 * 20_000));
  });

  it("summarises rewrites, branches and property changes like Iceberg does", () => {
    const scenario = ScenarioSchema.parse({
      name: "unit",
      description: "unit",
      table: "db.t",
      catalog: {
        tables: [
          {
            name: "db.t",
            branches: [{ name: "audit", maxSnapshotAgeMs: 3_600_000 }],
            snapshots: [
              {
                series: { from: "-30m", to: "-10m", every: "10m" },
                operation: "append",
                committer: { kind: "flink", jobId: JOB },
              },
              {
                at: "-5m",
                operation: "replace",
                committer: { kind: "spark", appId: "app-1" },
                addedDataFiles: 2,
                deletedDataFiles: 16,
              },
              {
                at: "-1m",
                operation: "append",
                committer: { kind: "connect", connector: "sink-a" },
                branch: "audit",
              },
            ],
          },
        ],
      },
    });
    const world = new World(scenario, NOW);
    const table = world.table("db.t");
    if (!table) throw new Error("table missing");
    const replace = table.snapshots[3];
    expect(replace?.summary).toMatchObject({
      operation: "replace",
      "deleted-data-files": "16",
      "added-data-files": "2",
      "total-data-files": "10",
      "spark.app.id": "app-1",
    });
    expect(replace?.summary["total-records"]).toBe(table.snapshots[2]?.summary["total-records"]);
    const audit = table.snapshots[4];
    expect(audit?.branch).toBe("audit");
    expect(audit?.summary["kafka.connect.task-id"]).toBe("sink-a-0");
    const text = table.loadResultJson();
    expect(text).toContain(`"main":{"snapshot-id":${replace?.id},"type":"branch"}`);
    expect(text).toContain(
      `"audit":{"snapshot-id":${audit?.id},"type":"branch","max-snapshot-age-ms":3600000}`,
    );

    const location = table.metadataLocation();
    table.updateProperties({ "commit.retry.num-retries": "8" }, [], NOW + 1_000);
    const after = JSON.parse(table.loadResultJson()) as {
      "metadata-location": string;
      metadata: {
        properties: Record<string, string>;
        "last-updated-ms": number;
        "metadata-log": { "metadata-file": string }[];
      };
    };
    expect(after["metadata-location"]).not.toBe(location);
    expect(after.metadata.properties["commit.retry.num-retries"]).toBe("8");
    expect(after.metadata["last-updated-ms"]).toBe(NOW + 1_000);
    expect(after.metadata["metadata-log"].at(-1)?.["metadata-file"]).toBe(location);
  });

  it("rejects writers that name tables the catalog does not have", () => {
    const scenario = ScenarioSchema.parse({
      name: "unit",
      description: "unit",
      table: "db.t",
      writers: [{ table: "db.missing", committer: { kind: "anonymous" } }],
    });
    expect(() => new World(scenario, NOW)).toThrow(/writer table "db.missing"/);
  });
});
