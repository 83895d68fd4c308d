import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";

describe("fault injection", () => {
  let lh: Lakehouse;
  beforeAll(async () => {
    lh = await startLakehouse({ scenario: "healthy-connect" });
  });
  afterEach(() => {
    lh.faults.clear();
  });
  afterAll(async () => {
    await lh.close();
  });

  it("delays an answer by the requested latency and still answers", async () => {
    lh.faults.inject({ service: "connect", path: "/connectors", kind: "latency", ms: 150, times: 1 });
    const started = performance.now();
    const res = await fetch(`${lh.urls.connect}/connectors`);
    expect(await res.json()).toEqual(["events-sink"]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("answers with a status and the service's own error body, for a limited number of times", async () => {
    lh.faults.inject({
      service: "connect",
      method: "POST",
      path: "^/connectors/[^/]+/restart$",
      kind: "status",
      status: 409,
      times: 1,
    });
    const first = await fetch(`${lh.urls.connect}/connectors/events-sink/restart?includeTasks=true`, {
      method: "POST",
    });
    expect(first.status).toBe(409);
    expect(await first.json()).toEqual({
      error_code: 409,
      message:
        "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)",
    });
    const second = await fetch(`${lh.urls.connect}/connectors/events-sink/restart?includeTasks=true`, {
      method: "POST",
    });
    expect(second.status).toBe(202);
    lh.faults.inject({ service: "catalog", path: /\/tables\//, kind: "status", status: 503 });
    const cat = await fetch(`${lh.urls.catalog}/v1/namespaces/db/tables/clicks`);
    expect(cat.status).toBe(503);
    expect(((await cat.json()) as { error: { code: number } }).error.code).toBe(503);
  });

  it("hangs until the client gives up", async () => {
    lh.faults.inject({ service: "flink", path: "/jobs/overview", kind: "hang" });
    const err = await fetch(`${lh.urls.flink}/jobs/overview`, { signal: AbortSignal.timeout(200) }).catch(
      (e: unknown) => e,
    );
    expect((err as Error).name).toBe("TimeoutError");
  });

  it("resets the connection", async () => {
    lh.faults.inject({ service: "prometheus", path: "/api/v1/query", kind: "reset" });
    const err = await fetch(`${lh.urls.prometheus}/api/v1/query?query=up`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    // undici reports a socket closed mid-request as UND_ERR_SOCKET; other stacks say ECONNRESET.
    expect((err as Error & { cause?: { code?: string } }).cause?.code).toMatch(
      /^(UND_ERR_SOCKET|ECONNRESET)$/,
    );
  });

  it("truncates the JSON body halfway", async () => {
    lh.faults.inject({
      service: "catalog",
      path: "/v1/namespaces/db/tables/clicks",
      kind: "truncate",
      times: 1,
    });
    const res = await fetch(`${lh.urls.catalog}/v1/namespaces/db/tables/clicks`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.startsWith('{"metadata-location":')).toBe(true);
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    const whole = await (await fetch(`${lh.urls.catalog}/v1/namespaces/db/tables/clicks`)).text();
    expect(text.length).toBe(Math.floor(whole.length / 2));
  });

  it("answers an HTML error page with status 200", async () => {
    lh.faults.inject({ service: "connect", path: "^/connectors/", kind: "non-json" });
    const res = await fetch(`${lh.urls.connect}/connectors/events-sink/status`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(await res.text()).toContain("<html>");
  });

  it("accepts faults over the admin route and clears them", async () => {
    const res = await fetch(`${lh.urls.catalog}/__sim/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ service: "catalog", path: "/v1/config", kind: "status", status: 500 }),
    });
    expect(((await res.json()) as { id: string }).id).toMatch(/^fault-/);
    expect((await fetch(`${lh.urls.catalog}/v1/config`)).status).toBe(500);
    expect((await fetch(`${lh.urls.catalog}/__sim/faults`, { method: "DELETE" })).status).toBe(204);
    expect((await fetch(`${lh.urls.catalog}/v1/config`)).status).toBe(200);
  });

  it("records every request it receives", async () => {
    const count = lh.requests.length;
    await fetch(`${lh.urls.connect}/connectors/events-sink/config`, { headers: { "x-test": "1" } });
    const last = lh.requests[lh.requests.length - 1];
    expect(lh.requests.length).toBe(count + 1);
    expect(last).toMatchObject({
      service: "connect",
      method: "GET",
      path: "/connectors/events-sink/config",
      body: "",
    });
    expect(last?.headers["x-test"]).toBe("1");
  });
});
