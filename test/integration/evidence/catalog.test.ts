// The catalog client against the simulated Iceberg REST catalog over loopback: listings, table
// evidence with exact 64-bit ids, property commits guarded by the table uuid, authentication,
// and every transport fault the simulator can inject.

import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCatalogClient } from "../../../src/adapters/evidence/catalog/client.js";
import { ErrorCode } from "../../../src/errors.js";
import { type FaultKind, type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";
import { codedFailure, useLakehouse } from "../../support/lakehouse-ports.js";

const TABLE = { namespace: ["db"], name: "events" };
const TABLE_PATH = "/v1/prod/namespaces/db/tables/events";
const UUID = "7d8f1c2e-5a4b-4c3d-9e8f-1a2b3c4d5e6f";
// Long enough for a healthy read on a busy machine; the faults below outlast it by far.
const TIMEOUT_MS = 1500;

const sim = useLakehouse("competing-appends");
const { agent } = sim;

function client(extra: Partial<Parameters<typeof createCatalogClient>[0]> = {}) {
  return createCatalogClient({
    url: sim.lakehouse.urls.catalog,
    dispatcher: agent,
    timeoutMs: TIMEOUT_MS,
    ...extra,
  });
}

describe("catalog client", () => {
  it("reads the prefix from /v1/config and lists namespaces and tables under it", async () => {
    const catalog = client({ warehouse: "s3://lake/warehouse" });
    expect((await catalog.getConfig()).prefix).toBe("prod");
    expect(await catalog.listNamespaces()).toContainEqual(["db"]);
    expect(await catalog.listTables(["db"])).toContainEqual(TABLE);
    const configCall = sim.lakehouse.requests.find((r) => r.path === "/v1/config");
    expect(configCall?.query.warehouse).toBe("s3://lake/warehouse");
  });

  it("loads the table as evidence with every 64-bit snapshot id exact", async () => {
    const evidence = await client().loadTable(TABLE);
    expect(evidence.uuid).toBe(UUID);
    expect(evidence.metadataLocation).toMatch(/\.metadata\.json$/);

    const raw = await (
      await request(`${sim.lakehouse.urls.catalog}${TABLE_PATH}`, { dispatcher: agent })
    ).body.text();
    const rawIds = [...raw.matchAll(/"snapshot-id":\s*(\d+)/g)].map((m) => m[1]);
    const longIds = rawIds.filter((id) => id !== undefined && !Number.isSafeInteger(Number(id)));
    expect(longIds.length).toBeGreaterThan(10);
    const ours = new Set(evidence.snapshots.map((s) => s.snapshotId));
    for (const id of longIds) expect(ours.has(id as string)).toBe(true);
    const current = /"current-snapshot-id":\s*(\d+)/.exec(raw)?.[1];
    expect(evidence.currentSnapshotId).toBe(current);
    expect(evidence.refs.main?.snapshotId).toBe(current);
    expect(evidence.snapshots.at(-1)?.snapshotId).toBe(current);
  });

  it("commits properties as a CommitTableRequest with assert-table-uuid", async () => {
    const catalog = client();
    const after = await catalog.commitProperties(TABLE, {
      expectedUuid: UUID,
      set: { "commit.retry.num-retries": "10" },
      remove: ["write.parquet.compression-codec"],
    });
    expect(after.properties["commit.retry.num-retries"]).toBe("10");
    expect(after.properties["write.parquet.compression-codec"]).toBe(undefined);

    const posted = sim.lakehouse.requests.filter((r) => r.method === "POST" && r.path === TABLE_PATH).at(-1);
    expect(JSON.parse(posted?.body ?? "{}")).toEqual({
      identifier: { namespace: ["db"], name: "events" },
      requirements: [{ type: "assert-table-uuid", uuid: UUID }],
      updates: [
        { action: "set-properties", updates: { "commit.retry.num-retries": "10" } },
        { action: "remove-properties", removals: ["write.parquet.compression-codec"] },
      ],
    });
    expect((await catalog.loadTable(TABLE)).properties["commit.retry.num-retries"]).toBe("10");
  });

  it("gets a 409 and changes nothing when the table uuid differs", async () => {
    const catalog = client();
    const error = await codedFailure(
      catalog.commitProperties(TABLE, {
        expectedUuid: "00000000-0000-4000-8000-000000000000",
        set: { "commit.retry.num-retries": "99" },
        remove: [],
      }),
    );
    expect(error.code).toBe(ErrorCode.SourceHttpStatus);
    expect(error.details).toMatchObject({ status: 409, upstreamType: "CommitFailedException" });
    expect((await catalog.loadTable(TABLE)).properties["commit.retry.num-retries"]).not.toBe("99");
  });

  it("reports a commit whose answer timed out as an unknown outcome", async () => {
    sim.lakehouse.faults.inject({
      service: "catalog",
      method: "POST",
      path: TABLE_PATH,
      kind: "hang",
      times: 1,
    });
    const error = await codedFailure(
      client().commitProperties(TABLE, {
        expectedUuid: UUID,
        set: { "commit.retry.max-wait-ms": "60000" },
        remove: [],
      }),
    );
    expect(error.code).toBe(ErrorCode.ChangeOutcomeUnknown);
    expect(error.details?.causeCode).toBe(ErrorCode.SourceTimeout);
  });

  it("maps a missing table to a 404 coded error with the Iceberg type", async () => {
    const error = await codedFailure(client().loadTable({ namespace: ["db"], name: "nope" }));
    expect(error.code).toBe(ErrorCode.SourceHttpStatus);
    expect(error.details).toMatchObject({ status: 404, upstreamType: "NoSuchTableException" });
  });

  const faults: [FaultKind, ErrorCode, Record<string, unknown>][] = [
    ["latency", ErrorCode.SourceTimeout, { ms: TIMEOUT_MS + 1500 }],
    ["status", ErrorCode.SourceHttpStatus, { status: 503 }],
    ["hang", ErrorCode.SourceTimeout, {}],
    ["reset", ErrorCode.SourceUnreachable, {}],
    ["truncate", ErrorCode.SourceMalformed, {}],
    ["non-json", ErrorCode.SourceMalformed, {}],
  ];
  it.each(faults)("turns a %s fault into %s within the timeout", async (kind, code, extra) => {
    const catalog = client();
    await catalog.getConfig();
    sim.lakehouse.faults.inject({ service: "catalog", path: TABLE_PATH, kind, times: 1, ...extra });
    const error = await codedFailure(catalog.loadTable(TABLE));
    expect(error.code).toBe(code);
    // A timeout comes from the client's own deadline (said by the error, not timed).
    if (code === ErrorCode.SourceTimeout) expect(error.details?.timeoutMs).toBe(TIMEOUT_MS);
    // The next call is healthy again: nothing sticky was left behind.
    expect((await catalog.loadTable(TABLE)).uuid).toBe(UUID);
  });

  it("retries /v1/config after a failed first read", async () => {
    sim.lakehouse.faults.inject({
      service: "catalog",
      path: "/v1/config",
      kind: "status",
      status: 502,
      times: 1,
    });
    const catalog = client();
    expect((await codedFailure(catalog.getConfig())).code).toBe(ErrorCode.SourceHttpStatus);
    expect((await catalog.getConfig()).prefix).toBe("prod");
  });
});

describe("catalog authentication", () => {
  let secured: Lakehouse;
  const SECRET = "s3cret-client-secret";

  beforeAll(async () => {
    secured = await startLakehouse({
      scenario: "competing-appends",
      catalogAuth: { token: "static-token-123", oauthClients: { bot: SECRET } },
      tokenTtlSeconds: 60,
    });
  });
  afterAll(async () => secured.close());

  const tokenRequests = () => secured.requests.filter((r) => r.path === "/v1/oauth/tokens");

  it("sends a fixed bearer token", async () => {
    const catalog = createCatalogClient({
      url: secured.urls.catalog,
      dispatcher: agent,
      auth: { kind: "bearer", token: "static-token-123" },
    });
    expect((await catalog.loadTable(TABLE)).uuid).toBe(UUID);
  });

  it("fails with AuthFailed and no secret in sight when credentials are missing or wrong", async () => {
    const anonymous = createCatalogClient({ url: secured.urls.catalog, dispatcher: agent });
    expect((await codedFailure(anonymous.getConfig())).code).toBe(ErrorCode.AuthFailed);

    const wrong = createCatalogClient({
      url: secured.urls.catalog,
      dispatcher: agent,
      auth: { kind: "oauth2", credential: "bot:not-the-secret" },
    });
    const error = await codedFailure(wrong.getConfig());
    expect(error.code).toBe(ErrorCode.AuthFailed);
    expect(`${error.message} ${error.hint} ${JSON.stringify(error.details)}`).not.toContain("not-the-secret");
  });

  it("keeps a token the catalog echoes back out of the error", async () => {
    secured.faults.inject({
      service: "catalog",
      path: TABLE_PATH,
      kind: "status",
      status: 403,
      times: 1,
      body: {
        error: {
          message: "token static-token-123 may not read db.events",
          type: "ForbiddenException",
          code: 403,
        },
      },
    });
    const catalog = createCatalogClient({
      url: secured.urls.catalog,
      dispatcher: agent,
      auth: { kind: "bearer", token: "static-token-123" },
    });
    const error = await codedFailure(catalog.loadTable(TABLE));
    expect(error.code).toBe(ErrorCode.AuthFailed);
    expect(error.message).toContain("[redacted] may not read");
    expect(JSON.stringify({ m: error.message, d: error.details })).not.toContain("static-token-123");
  });

  it("exchanges client credentials for a token, reuses it, and renews it before it expires", async () => {
    const before = tokenRequests().length;
    const catalog = createCatalogClient({
      url: secured.urls.catalog,
      dispatcher: agent,
      auth: { kind: "oauth2", credential: `bot:${SECRET}` },
      now: () => secured.clock.now(),
    });
    await catalog.loadTable(TABLE);
    await catalog.listTables(["db"]);
    expect(tokenRequests().length - before).toBe(1);
    const form = new URLSearchParams(tokenRequests().at(-1)?.body);
    expect(form.get("grant_type")).toBe("client_credentials");
    expect(form.get("client_id")).toBe("bot");
    expect(form.get("scope")).toBe("catalog");

    secured.advance(58_000); // inside the renewal margin of a 60 s token
    await catalog.loadTable(TABLE);
    expect(tokenRequests().length - before).toBe(2);
    const used = secured.requests
      .filter((r) => r.path === TABLE_PATH)
      .slice(-2)
      .map((r) => r.headers.authorization);
    expect(used[0]).not.toBe(used[1]);
  });

  it("asks for a new token once after a 401 for an expired one", async () => {
    const before = tokenRequests().length;
    // This client's clock stands still, so only the catalog's 401 can tell it the token lapsed.
    const frozen = secured.clock.now();
    const catalog = createCatalogClient({
      url: secured.urls.catalog,
      dispatcher: agent,
      auth: { kind: "oauth2", credential: `bot:${SECRET}` },
      now: () => frozen,
    });
    await catalog.loadTable(TABLE);
    secured.advance(120_000);
    expect((await catalog.loadTable(TABLE)).uuid).toBe(UUID);
    expect(tokenRequests().length - before).toBe(2);
  });
});
