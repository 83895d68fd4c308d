import { describe, expect, it } from "vitest";
import { createEvidencePorts } from "../../../src/adapters/evidence/from-config.js";
import { loadConfig } from "../../../src/config.js";

describe("createEvidencePorts", () => {
  it("builds only the sources that are configured", () => {
    const onlyFlink = createEvidencePorts(loadConfig({ FLINK_REST_URL: "http://flink:8081" }));
    expect(Object.keys(onlyFlink)).toEqual(["flink"]);
    const all = createEvidencePorts(
      loadConfig({
        ICEBERG_CATALOG_URL: "http://catalog:8181",
        FLINK_REST_URL: "http://flink:8081",
        CONNECT_REST_URL: "http://connect:8083",
        PROMETHEUS_URL: "http://prometheus:9090",
      }),
    );
    expect(Object.keys(all).sort()).toEqual(["catalog", "connect", "flink", "prometheus"]);
    expect(createEvidencePorts(loadConfig({}))).toEqual({});
  });

  it("picks the catalog authentication: client credentials over a fixed token, else none", () => {
    const base = { ICEBERG_CATALOG_URL: "http://catalog:8181" };
    const catalogAuth = (config: ReturnType<typeof loadConfig>) => config.sources.catalogs[0]?.auth;
    expect(catalogAuth(loadConfig(base))).toEqual({ kind: "none" });
    expect(catalogAuth(loadConfig({ ...base, ICEBERG_CATALOG_TOKEN: "tok-1234" }))).toEqual({
      kind: "bearer",
      token: "tok-1234",
    });
    expect(
      catalogAuth(
        loadConfig({
          ...base,
          ICEBERG_CATALOG_TOKEN: "tok-1234",
          ICEBERG_CATALOG_CREDENTIAL: "bot:secret",
          ICEBERG_CATALOG_OAUTH_URI: "https://idp.example/token",
        }),
      ),
    ).toEqual({
      kind: "oauth2",
      credential: "bot:secret",
      tokenUrl: "https://idp.example/token",
      scope: "catalog",
    });
  });
});
