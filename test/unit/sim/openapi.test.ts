import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createSpecValidator, FLINK_SPEC, ICEBERG_SPEC, REAL_DIR } from "../../support/openapi.js";

const iceberg = createSpecValidator(ICEBERG_SPEC);
const flink = createSpecValidator(FLINK_SPEC);
const upstreamLoad = JSON.parse(
  readFileSync(path.join(REAL_DIR, "iceberg/rust-testdata/load_table_response.json"), "utf8"),
) as { metadata: { snapshots: Record<string, unknown>[] } };

describe("createSpecValidator", () => {
  it("accepts an upstream LoadTableResult fixture", () => {
    expect(iceberg.validateResponse("GET", "/v1/namespaces/ns/tables/t", 200, upstreamLoad)).toEqual([]);
  });

  it("rejects a deliberately broken LoadTableResult and says where", () => {
    const broken = structuredClone(upstreamLoad);
    const snapshot = broken.metadata.snapshots[0] as Record<string, unknown>;
    snapshot["timestamp-ms"] = "yesterday";
    const errors = iceberg.validateResponse("GET", "/v1/namespaces/ns/tables/t", 200, broken);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join("\n")).toContain("/metadata/snapshots/0");
  });

  it("rejects undeclared statuses, unknown routes and broken Flink bodies", () => {
    expect(iceberg.validateResponse("GET", "/v1/config", 418, {})[0]).toContain("418");
    expect(iceberg.validateResponse("GET", "/v2/nothing", 200, {})[0]).toContain("no operation");
    expect(
      flink.validateResponse("GET", "/jobs/overview", 200, { jobs: [{ jid: "x", state: "BROKEN" }] }).length,
    ).toBeGreaterThan(0);
    expect(flink.validateResponse("GET", "/jobs/overview", 200, { jobs: [] })).toEqual([]);
  });

  it("validates request bodies and query strings", () => {
    const route = "/v1/namespaces/db/tables/events";
    expect(iceberg.validateRequest("POST", route, { requirements: [], updates: [] })).toEqual([]);
    expect(iceberg.validateRequest("POST", route, { updates: [] }).join()).toContain("requirements");
  });
});
