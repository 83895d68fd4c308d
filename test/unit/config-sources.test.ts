// BOT_CONFIG's sources: named Flink sources, Connect clusters, catalogs and Prometheus servers,
// each with its own auth read from a variable or a file, validated at start with file:line.

import { describe, expect, it } from "vitest";
import { loadConfig, REDACTED, redactConfig, secretValues } from "../../src/config.js";
import { catalogForTable } from "../../src/core/sources/model.js";

const PLATFORM = `sources:
  flink:
    - name: flink-prod-eu
      url: https://flink-eu.example:8081
      auth: { type: basic, username: bot, passwordEnv: FLINK_EU_PASSWORD }
      tls: { certFile: /etc/bot/client.crt, keyFile: /etc/bot/client.key, caFile: /etc/bot/ca.crt }
    - name: flink-prod-us
      url: https://flink-us.example:8081
      auth: { type: bearer, tokenFile: /etc/bot/flink-us.token }
  connect:
    - name: connect-eu
      url: https://connect-eu.example:8083
  catalogs:
    - name: prod
      url: https://polaris.example/api/catalog
      warehouse: prod
      default: true
      auth: { type: oauth2, clientId: bot, clientSecretEnv: POLARIS_SECRET, scope: PRINCIPAL_ROLE:ALL }
    - name: glue
      url: https://glue.eu-west-1.amazonaws.com/iceberg
      prefix: catalogs/123456789012
      namespaces: [finance]
      tables: [sales.orders]
      auth: { type: sigv4, region: eu-west-1, signingName: glue }
`;

const FILES: Record<string, string> = {
  "/etc/bot/client.crt": "-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n",
  "/etc/bot/client.key": "-----BEGIN PRIVATE KEY-----\nKEYMATERIAL\n-----END PRIVATE KEY-----\n",
  "/etc/bot/ca.crt": "-----BEGIN CERTIFICATE-----\nCCC\n-----END CERTIFICATE-----\n",
  "/etc/bot/flink-us.token": "flink-us-token-123\n",
  "/etc/bot/bot.yaml": PLATFORM,
};
const readFile = (path: string) => {
  const text = FILES[path];
  if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
  return text;
};
const ENV = { FLINK_EU_PASSWORD: "eu-pass-456", POLARIS_SECRET: "polaris-secret-789" };

function problemsOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the configuration to be refused");
}

describe("BOT_CONFIG sources", () => {
  it("reads every named source with its own auth from variables and files", () => {
    const config = loadConfig({ ...ENV, BOT_CONFIG: "/etc/bot/bot.yaml" }, { readFile });
    const [eu, us] = config.sources.flink;
    expect(eu).toMatchObject({
      name: "flink-prod-eu",
      auth: { kind: "basic", username: "bot", password: "eu-pass-456" },
      origin: "config",
    });
    expect(eu?.tls?.key).toContain("KEYMATERIAL");
    expect(us?.auth).toEqual({
      kind: "bearer",
      token: "flink-us-token-123",
      tokenFile: "/etc/bot/flink-us.token",
    });
    const [prod, glue] = config.sources.catalogs;
    expect(prod).toMatchObject({
      isDefault: true,
      warehouse: "prod",
      auth: { kind: "oauth2", credential: "bot:polaris-secret-789", scope: "PRINCIPAL_ROLE:ALL" },
    });
    expect(glue).toMatchObject({
      isDefault: false,
      prefix: "catalogs/123456789012",
      auth: { kind: "sigv4", region: "eu-west-1", signingName: "glue" },
    });
    // Tables and namespaces map to a catalog; the rest go to the default.
    expect(catalogForTable(config.sources.catalogs, "sales.orders")?.name).toBe("glue");
    expect(catalogForTable(config.sources.catalogs, "finance.ledger")?.name).toBe("glue");
    expect(catalogForTable(config.sources.catalogs, "web.clicks")?.name).toBe("prod");
  });

  it("keeps the single-URL variables as the default source of each kind", () => {
    const config = loadConfig(
      {
        ...ENV,
        FLINK_REST_URL: "http://flink:8081",
        ICEBERG_CATALOG_URL: "http://catalog:8181",
        ICEBERG_CATALOG_TOKEN: "cat-token-1",
        BOT_CONFIG: PLATFORM.replace("      default: true\n", ""),
      },
      { readFile },
    );
    expect(config.sources.flink.map((s) => `${s.name}:${s.origin}`)).toEqual([
      "default:env",
      "flink-prod-eu:config",
      "flink-prod-us:config",
    ]);
    const [fromEnv] = config.sources.catalogs;
    expect(fromEnv).toMatchObject({
      name: "default",
      isDefault: true,
      auth: { kind: "bearer", token: "cat-token-1" },
    });
    expect(catalogForTable(config.sources.catalogs, "web.clicks")?.name).toBe("default");
  });

  it("refuses inline secrets, naming the key, its line and what to write instead", () => {
    const text = PLATFORM.replace("passwordEnv: FLINK_EU_PASSWORD", "password: hunter2-inline");
    const message = problemsOf(() => loadConfig({ ...ENV, BOT_CONFIG: text }, { readFile }));
    expect(message).toContain("sources.flink.0.auth.password");
    expect(message).toContain("secrets are never written in BOT_CONFIG: use passwordEnv or passwordFile");
    expect(message).toContain("(at BOT_CONFIG:5)");
    expect(message).not.toContain("hunter2-inline");
  });

  it("names a missing variable or unreadable file with file:line, never a secret", () => {
    const message = problemsOf(() =>
      loadConfig(
        { BOT_CONFIG: "/etc/bot/bot.yaml", POLARIS_SECRET: "polaris-secret-789" },
        {
          readFile: (path) => (path === "/etc/bot/flink-us.token" ? readFile("/nope") : readFile(path)),
        },
      ),
    );
    expect(message).toContain(
      "sources.flink.0.auth.passwordEnv: the environment variable FLINK_EU_PASSWORD is not set or empty (at /etc/bot/bot.yaml:5)",
    );
    expect(message).toContain("sources.flink.1.auth.tokenFile: cannot read /etc/bot/flink-us.token (ENOENT)");
    expect(message).toContain("(at /etc/bot/bot.yaml:9)");
    expect(message).not.toContain("polaris-secret-789");
  });

  it("refuses duplicate names, two defaults, a clash with the variables' default, and half a client certificate", () => {
    const text = `sources:
  connect:
    - { name: a, url: "http://a:8083" }
    - { name: a, url: "http://b:8083", tls: { certFile: /etc/bot/client.crt } }
  catalogs:
    - { name: x, url: "http://x", default: true }
    - { name: default, url: "http://y", default: true }
`;
    const message = problemsOf(() =>
      loadConfig({ BOT_CONFIG: text, ICEBERG_CATALOG_URL: "http://catalog:8181" }, { readFile }),
    );
    expect(message).toContain("sources.connect.1.name: the name a is used twice (at BOT_CONFIG:4)");
    expect(message).toContain("certFile and keyFile go together");
    expect(message).toContain("only one catalog can be the default (x, default say default: true)");
  });

  it("an unknown key under a source lists the keys allowed there", () => {
    const text = `sources:\n  flink:\n    - name: a\n      url: http://a:8081\n      uri: http://b\n`;
    const message = problemsOf(() => loadConfig({ BOT_CONFIG: text }));
    expect(message).toContain(
      "sources.flink.0.uri: unknown key (allowed: name, url, auth, tls) (at BOT_CONFIG:5)",
    );
  });

  it("keeps every source secret out of printed config and in the scrub list", () => {
    const config = loadConfig(
      { ...ENV, BOT_CONFIG: "/etc/bot/bot.yaml", AWS_SECRET_ACCESS_KEY: "aws-secret-000" },
      { readFile },
    );
    const printed = JSON.stringify(redactConfig(config));
    for (const secret of [
      "eu-pass-456",
      "flink-us-token-123",
      "polaris-secret-789",
      "KEYMATERIAL",
      "aws-secret-000",
    ])
      expect(printed).not.toContain(secret);
    expect(printed).toContain(REDACTED);
    expect(secretValues(config)).toEqual(
      expect.arrayContaining(["eu-pass-456", "flink-us-token-123", "polaris-secret-789", "aws-secret-000"]),
    );
  });
});
