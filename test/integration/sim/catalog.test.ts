import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSimClock } from "../../../src/sim/clock.js";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";
import { createSpecValidator, ICEBERG_SPEC } from "../../support/openapi.js";

const spec = createSpecValidator(ICEBERG_SPEC);
const TABLE_PATH = "/v1/prod/namespaces/db/tables/events";

async function call(
  lh: Lakehouse,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string; json: unknown }> {
  const res = await fetch(lh.urls.catalog + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: text ? JSON.parse(text) : undefined };
}

describe("simulated Iceberg REST catalog", () => {
  let lh: Lakehouse;
  beforeAll(async () => {
    lh = await startLakehouse({ scenario: "competing-appends", clock: createSimClock(1_800_000_000_000) });
  });
  afterAll(async () => {
    await lh.close();
  });

  it("serves every catalog endpoint in the shape the upstream spec defines", async () => {
    const cases: [string, string, number][] = [
      ["GET", "/v1/config?warehouse=s3%3A%2F%2Flake%2Fwarehouse", 200],
      ["GET", "/v1/prod/namespaces", 200],
      ["GET", "/v1/prod/namespaces?parent=db", 200],
      ["GET", "/v1/prod/namespaces/db", 200],
      ["GET", "/v1/prod/namespaces/db/tables", 200],
      ["GET", TABLE_PATH, 200],
      ["GET", "/v1/prod/namespaces/db/tables/missing", 404],
      ["GET", "/v1/prod/namespaces/nope/tables", 404],
    ];
    for (const [method, path, status] of cases) {
      const res = await call(lh, method, path);
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(spec.validateResponse(method, path, status, res.json), `${method} ${path}`).toEqual([]);
    }
    const head = await fetch(lh.urls.catalog + TABLE_PATH, { method: "HEAD" });
    expect(head.status).toBe(204);
    const refsOnly = await call(lh, "GET", `${TABLE_PATH}?snapshots=refs`);
    expect(spec.validateResponse("GET", `${TABLE_PATH}?snapshots=refs`, 200, refsOnly.json)).toEqual([]);
    expect((refsOnly.json as { metadata: { snapshots: unknown[] } }).metadata.snapshots).toHaveLength(1);
  });

  it("answers config with the scenario's prefix and lists namespaces and tables", async () => {
    const config = (await call(lh, "GET", "/v1/config")).json as { overrides: Record<string, string> };
    expect(config.overrides.prefix).toBe("prod");
    expect((await call(lh, "GET", "/v1/prod/namespaces")).json).toEqual({ namespaces: [["db"]] });
    expect((await call(lh, "GET", "/v1/prod/namespaces/db/tables")).json).toEqual({
      identifiers: [{ namespace: ["db"], name: "events" }],
    });
    const missing = (await call(lh, "GET", "/v1/prod/namespaces/db/tables/missing")).json as {
      error: { type: string };
    };
    expect(missing.error.type).toBe("NoSuchTableException");
  });

  it("writes snapshot ids as exact 64-bit integers with realistic summaries", async () => {
    const { text } = await call(lh, "GET", TABLE_PATH);
    const current = /"current-snapshot-id":(\d+)/.exec(text)?.[1];
    expect(current).toBeDefined();
    expect(BigInt(current as string) > 2n ** 53n).toBe(true);
    expect(text).toContain(`"main":{"snapshot-id":${current},"type":"branch"}`);
    const parsed = JSON.parse(text) as {
      metadata: { snapshots: { summary: Record<string, string> }[]; "snapshot-log": unknown[] };
    };
    const flink = parsed.metadata.snapshots.find((s) => s.summary["flink.job-id"]);
    expect(flink?.summary).toMatchObject({
      operation: "append",
      "flink.job-id": "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b",
      "added-data-files": "8",
    });
    expect(flink?.summary["flink.max-committed-checkpoint-id"]).toMatch(/^\d+$/);
    const spark = parsed.metadata.snapshots.find((s) => s.summary["spark.app.id"]);
    expect(spark?.summary["spark.app.id"]).toBe("application_1700000000000_0412");
    expect(Number(spark?.summary["total-records"])).toBeGreaterThan(0);
  });

  it("applies a property commit and shows it on the next load", async () => {
    const before = (await call(lh, "GET", TABLE_PATH)).json as {
      "metadata-location": string;
      metadata: { "table-uuid": string; "metadata-log": unknown[]; "last-updated-ms": number };
    };
    const request = {
      requirements: [{ type: "assert-table-uuid", uuid: before.metadata["table-uuid"] }],
      updates: [
        { action: "set-properties", updates: { "commit.retry.min-wait-ms": "500" } },
        { action: "remove-properties", removals: ["write.parquet.compression-codec"] },
      ],
    };
    expect(spec.validateRequest("POST", TABLE_PATH, request)).toEqual([]);
    lh.advance(1_000);
    const res = await call(lh, "POST", TABLE_PATH, request);
    expect(res.status).toBe(200);
    expect(spec.validateResponse("POST", TABLE_PATH, 200, res.json)).toEqual([]);
    const after = (await call(lh, "GET", TABLE_PATH)).json as {
      "metadata-location": string;
      metadata: { properties: Record<string, string>; "metadata-log": unknown[]; "last-updated-ms": number };
    };
    expect(after.metadata.properties["commit.retry.min-wait-ms"]).toBe("500");
    expect(after.metadata.properties["write.parquet.compression-codec"]).toBeUndefined();
    expect(after["metadata-location"]).not.toBe(before["metadata-location"]);
    expect(after.metadata["last-updated-ms"]).toBe(lh.clock.now());
    expect(after.metadata["metadata-log"]).toContainEqual({
      "timestamp-ms": before.metadata["last-updated-ms"],
      "metadata-file": before["metadata-location"],
    });
  });

  it("rejects a commit whose requirements no longer hold with a 409 CommitFailedException", async () => {
    const { text } = await call(lh, "GET", TABLE_PATH);
    const current = /"current-snapshot-id":(\d+)/.exec(text)?.[1] as string;
    const stale = (BigInt(current) - 1n).toString();
    // Build the JSON text by hand so the 64-bit id travels exactly.
    const body = `{"requirements":[{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":${stale}}],"updates":[{"action":"set-properties","updates":{"a":"b"}}]}`;
    const res = await call(lh, "POST", TABLE_PATH, body);
    expect(res.status).toBe(409);
    expect(spec.validateResponse("POST", TABLE_PATH, 409, res.json)).toEqual([]);
    expect((res.json as { error: { type: string; message: string } }).error).toMatchObject({
      type: "CommitFailedException",
      message: `Requirement failed: branch main has changed: expected id ${stale} != ${current}`,
    });
    const exact = `{"requirements":[{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":${current}}],"updates":[]}`;
    expect((await call(lh, "POST", TABLE_PATH, exact)).status).toBe(200);
    const wrongUuid = await call(lh, "POST", TABLE_PATH, {
      requirements: [{ type: "assert-table-uuid", uuid: "00000000-0000-4000-8000-000000000000" }],
      updates: [],
    });
    expect(wrongUuid.status).toBe(409);
  });
});

describe("catalog authentication", () => {
  let lh: Lakehouse;
  beforeAll(async () => {
    lh = await startLakehouse({
      scenario: "competing-appends",
      catalogAuth: { oauthClients: { "bot-client": "s3cr3t" } },
      tokenTtlSeconds: 60,
    });
  });
  afterAll(async () => {
    await lh.close();
  });

  const token = (form: Record<string, string>) =>
    fetch(`${lh.urls.catalog}/v1/oauth/tokens`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    });

  it("issues client-credentials tokens that expire with the clock", async () => {
    expect((await fetch(`${lh.urls.catalog}/v1/config`)).status).toBe(401);
    const res = await token({
      grant_type: "client_credentials",
      client_id: "bot-client",
      client_secret: "s3cr3t",
      scope: "catalog",
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(spec.validateResponse("POST", "/v1/oauth/tokens", 200, body)).toEqual([]);
    expect(body.expires_in).toBe(60);
    const auth = { authorization: `Bearer ${body.access_token}` };
    expect((await fetch(`${lh.urls.catalog}/v1/config`, { headers: auth })).status).toBe(200);
    lh.advance(61_000);
    const expired = await fetch(`${lh.urls.catalog}/v1/config`, { headers: auth });
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { error: { type: string } }).error.type).toBe("NotAuthorizedException");
  });

  it("answers a bad client with a 401 OAuthError", async () => {
    const res = await token({
      grant_type: "client_credentials",
      client_id: "bot-client",
      client_secret: "wrong",
    });
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body).toMatchObject({ error: "invalid_client" });
    expect(spec.validateResponse("POST", "/v1/oauth/tokens", 401, body)).toEqual([]);
  });
});
