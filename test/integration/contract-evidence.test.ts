// Contracts with the real upstream APIs: the catalog client's requests (as the simulator
// recorded them) validate against the Iceberg REST OpenAPI spec, and the verbatim upstream
// payloads in test/fixtures/upstream parse through the same zod schemas the clients use.

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { createCatalogClient } from "../../src/adapters/evidence/catalog/client.js";
import {
  ConnectorConfigSchema,
  ConnectorStateInfoSchema,
} from "../../src/adapters/evidence/connect/schemas.js";
import {
  JobDetailsSchema,
  MetricIdsSchema,
  MetricValuesSchema,
} from "../../src/adapters/evidence/flink/schemas.js";
import {
  LoadTableResultSchema,
  TableMetadataSchema,
  toTableEvidence,
} from "../../src/adapters/evidence/iceberg-schemas.js";
import { protectSnapshotIds } from "../../src/adapters/evidence/snapshot-ids.js";
import { type Lakehouse, startLakehouse } from "../../src/sim/lakehouse.js";
import { createSpecValidator, ICEBERG_SPEC, REAL_DIR } from "../support/openapi.js";

const agent = new Agent();
const ref = { namespace: ["db"], name: "t" };

function readJson(relative: string): unknown {
  return JSON.parse(protectSnapshotIds(readFileSync(path.join(REAL_DIR, relative), "utf8")));
}

function parses(schema: z.ZodType, relative: string): void {
  const result = schema.safeParse(readJson(relative));
  expect(result.error?.issues ?? [], relative).toEqual([]);
}

describe("catalog requests against the Iceberg REST spec", () => {
  let lakehouse: Lakehouse;
  const validator = createSpecValidator(ICEBERG_SPEC);

  beforeAll(async () => {
    lakehouse = await startLakehouse({
      scenario: "competing-appends",
      catalogAuth: { oauthClients: { bot: "contract-secret" } },
    });
    const catalog = createCatalogClient({
      url: lakehouse.urls.catalog,
      warehouse: "s3://lake/warehouse",
      dispatcher: agent,
      auth: { kind: "oauth2", credential: "bot:contract-secret" },
    });
    const table = { namespace: ["db"], name: "events" };
    await catalog.getConfig();
    await catalog.listNamespaces();
    await catalog.listNamespaces(["db"]);
    await catalog.listTables(["db"]);
    const loaded = await catalog.loadTable(table);
    await catalog.commitProperties(table, {
      expectedUuid: loaded.uuid,
      set: { "commit.retry.num-retries": "8" },
      remove: ["write.parquet.compression-codec"],
    });
  });
  afterAll(async () => {
    await lakehouse.close();
    await agent.close();
  });

  it("sent every kind of call the bot makes", () => {
    const kinds = new Set(lakehouse.requests.map((r) => `${r.method} ${r.path}`));
    expect([...kinds]).toEqual(
      expect.arrayContaining([
        "POST /v1/oauth/tokens",
        "GET /v1/config",
        "GET /v1/prod/namespaces",
        "GET /v1/prod/namespaces/db/tables",
        "GET /v1/prod/namespaces/db/tables/events",
        "POST /v1/prod/namespaces/db/tables/events",
      ]),
    );
  });

  it("sends only requests the spec accepts (path, query and JSON body)", () => {
    const json = lakehouse.requests.filter((r) => r.path !== "/v1/oauth/tokens");
    expect(json.length).toBeGreaterThanOrEqual(6);
    for (const r of json) {
      const body = r.body ? JSON.parse(r.body) : undefined;
      const query = Object.fromEntries(Object.entries(r.query).filter(([, v]) => v !== undefined)) as Record<
        string,
        string | string[]
      >;
      expect(validator.validateRequest(r.method, r.path, body, query), `${r.method} ${r.path}`).toEqual([]);
    }
  });

  it("sends the OAuth2 client-credentials form the spec describes", () => {
    const token = lakehouse.requests.find((r) => r.path === "/v1/oauth/tokens");
    expect(token?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const form = Object.fromEntries(new URLSearchParams(token?.body));
    expect(form).toEqual({
      grant_type: "client_credentials",
      client_id: "bot",
      client_secret: "contract-secret",
      scope: "catalog",
    });
  });

  it("a deliberately broken commit body is rejected by the same validator", () => {
    const broken = { requirements: [{ type: "assert-table-uuid" }], updates: [{ action: "set-properties" }] };
    expect(
      validator.validateRequest("POST", "/v1/prod/namespaces/db/tables/events", broken).length,
    ).toBeGreaterThan(0);
  });
});

describe("upstream payloads through our schemas", () => {
  const icebergMetadata = readdirSync(path.join(REAL_DIR, "iceberg")).filter((f) => f.endsWith(".json"));
  const rustMetadata = [
    "example_table_metadata_v2.json",
    "example_table_metadata_v2_deep_history.json",
    "TableMetadataV1Compat.json",
  ];

  it("has the Iceberg fixtures it expects", () => {
    expect(icebergMetadata).toEqual(
      expect.arrayContaining(["TableMetadataV1Valid.json", "TableMetadataV3ValidMinimal.json"]),
    );
  });

  it.each(icebergMetadata)("iceberg/%s parses as table metadata", (file) => {
    parses(TableMetadataSchema, `iceberg/${file}`);
  });

  it.each(rustMetadata)("iceberg/rust-testdata/%s parses as table metadata", (file) => {
    parses(TableMetadataSchema, `iceberg/rust-testdata/${file}`);
  });

  it.each(["load_table_response.json", "update_table_response.json", "create_table_response.json"])(
    "iceberg/rust-testdata/%s parses as a LoadTableResult",
    (file) => {
      parses(LoadTableResultSchema, `iceberg/rust-testdata/${file}`);
    },
  );

  it("keeps the 19-digit ids of a real LoadTableResult exact", () => {
    const relative = "iceberg/rust-testdata/load_table_response.json";
    const raw = readFileSync(path.join(REAL_DIR, relative), "utf8");
    const digits = /"current-snapshot-id":\s*(\d+)/.exec(raw)?.[1];
    const result = LoadTableResultSchema.parse(readJson(relative));
    const evidence = toTableEvidence(ref, result.metadata, result["metadata-location"]);
    expect(digits).toBe("3497810964824022504");
    expect(evidence.currentSnapshotId).toBe(digits);
    expect(evidence.snapshots[0]?.snapshotId).toBe(digits);
    expect(evidence.refs.main?.snapshotId).toBe(digits);
    expect(evidence.snapshots[0]?.summary["spark.app.id"]).toBe("local-1646787004168");
    expect(evidence.metadataLocation).toMatch(/00001-.*\.gz\.metadata\.json$/);
  });

  it("reads the deep-history fixture into ordered snapshots with parents", () => {
    const metadata = TableMetadataSchema.parse(
      readJson("iceberg/rust-testdata/example_table_metadata_v2_deep_history.json"),
    );
    const evidence = toTableEvidence(ref, metadata);
    expect(evidence.snapshots).toHaveLength(5);
    const times = evidence.snapshots.map((s) => s.timestampMs);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(evidence.snapshots.slice(1).every((s) => s.parentSnapshotId !== undefined)).toBe(true);
  });

  it("parses the Flink job details example", () => {
    parses(JobDetailsSchema, "flink/examples/ops-playground_GET_jobs_jobid_response.json");
  });

  it.each([
    [MetricIdsSchema, "flink/examples/metrics-doc_GET_jobmanager_metrics_list_response.json"],
    [MetricValuesSchema, "flink/examples/metrics-doc_GET_taskmanagers_id_metrics_get_response.json"],
    [
      MetricValuesSchema,
      "flink/examples/ops-playground_GET_jobs_jobid_metrics_get_lastCheckpointSize_response.json",
    ],
  ] as const)("parses the bare-array metric example %#", (schema, file) => {
    parses(schema, file);
  });

  it("parses the Kafka Connect status example", () => {
    parses(ConnectorStateInfoSchema, "connect/kafka-docs_GET_connectors_file-source_status_response.json");
  });

  it.each([
    "iceberg-docs_POST_connectors_request_single-table.json",
    "iceberg-docs_POST_connectors_request_static-routing.json",
    "iceberg-docs_POST_connectors_request_dynamic-routing.json",
  ])("parses the config map of connect/%s", (file) => {
    const body = readJson(`connect/${file}`) as { config: unknown };
    expect(ConnectorConfigSchema.safeParse(body.config).success).toBe(true);
  });

  it("rejects a deliberately broken fixture and names the field", () => {
    const metadata = readJson("iceberg/TableMetadataV2Valid.json") as Record<string, unknown>;
    const broken = {
      ...metadata,
      snapshots: [{ "snapshot-id": "not-a-number", "timestamp-ms": "yesterday" }],
    };
    const result = TableMetadataSchema.safeParse(broken);
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((i) => i.path.join(".")) ?? [];
    expect(paths).toContain("snapshots.0.snapshot-id");
    expect(paths).toContain("snapshots.0.timestamp-ms");
    // The Flink spec's {"metrics": [...]} wrapper is not what the server sends; our schema says so.
    expect(MetricValuesSchema.safeParse({ metrics: [{ id: "a", value: "1" }] }).success).toBe(false);
  });
});
