import { describe, expect, it } from "vitest";
import { loadConfig, REDACTED, redactConfig, secretValues } from "../../src/config.js";
import { tableSettings } from "../../src/core/settings.js";
import { CodedError, ErrorCode } from "../../src/errors.js";
import { scrubAllForms } from "../../src/util/secret-forms.js";

const secrets = {
  SLACK_BOT_TOKEN: "xoxb-123-456-abcdef",
  SLACK_SIGNING_SECRET: "8f742231b10e8888abcd99yyyzzz85a5",
  ICEBERG_CATALOG_URL: "http://catalog:8181",
  ICEBERG_CATALOG_CREDENTIAL: "bot-client:s3cr3t-value",
  ALERT_WEBHOOK_TOKEN: "hook-token-xyz",
  REDIS_URL: "redis://:redis-pass@127.0.0.1:6379",
};

describe("loadConfig", () => {
  it("applies defaults when the environment is empty", () => {
    const config = loadConfig({});
    expect(config.redisUrl).toBe("redis://127.0.0.1:6379");
    expect(config.port).toBe(3000);
    expect(config.slack.mode).toBe("http");
    expect(config.bot.defaults.followUp).toEqual({ intervalSeconds: 300, checks: 6 });
  });

  it("takes an empty variable as unset, as docker compose passes an unset variable", () => {
    const config = loadConfig({
      SOURCE_TIMEOUT_MS: "",
      LOG_LEVEL: " ",
      PORT: "",
      REDIS_URL: "",
      SLACK_API_URL: "",
    });
    expect(config.sourceTimeoutMs).toBe(5000);
    expect(config.logLevel).toBe("info");
    expect(config.port).toBe(3000);
    expect(config.redisUrl).toBe("redis://127.0.0.1:6379");
    expect(config.slack.apiUrl).toBeUndefined();
    expect(() => loadConfig({ SOURCE_TIMEOUT_MS: "0" })).toThrow(/SOURCE_TIMEOUT_MS/);
  });

  it("reports every invalid value in one message", () => {
    let caught: unknown;
    try {
      loadConfig({
        PORT: "not-a-port",
        ICEBERG_CATALOG_URL: "ftp://x",
        ICEBERG_CATALOG_CREDENTIAL: "no-colon",
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CodedError);
    const error = caught as CodedError;
    expect(error.code).toBe(ErrorCode.ConfigInvalid);
    expect(error.message).toContain("PORT");
    expect(error.message).toContain("ICEBERG_CATALOG_URL");
    expect(error.message).toContain("ICEBERG_CATALOG_CREDENTIAL");
  });

  it("never echoes a secret in a validation error", () => {
    expect(() => loadConfig({ ...secrets, ICEBERG_CATALOG_CREDENTIAL: "s3cr3t-without-colon" })).toThrow(
      CodedError,
    );
    try {
      loadConfig({ ...secrets, ICEBERG_CATALOG_CREDENTIAL: "s3cr3t-without-colon" });
    } catch (error) {
      expect((error as Error).message).not.toContain("s3cr3t-without-colon");
    }
  });

  it("asks the catalog's OAuth server for the catalog scope unless ICEBERG_CATALOG_SCOPE names another", () => {
    const env = { ICEBERG_CATALOG_URL: "http://catalog:8181", ICEBERG_CATALOG_CREDENTIAL: "bot:s3cr3t" };
    expect(loadConfig(env).sources.catalogs[0]?.auth).toMatchObject({ kind: "oauth2", scope: "catalog" });
    expect(
      loadConfig({ ...env, ICEBERG_CATALOG_SCOPE: "PRINCIPAL_ROLE:ALL" }).sources.catalogs[0]?.auth,
    ).toMatchObject({
      scope: "PRINCIPAL_ROLE:ALL",
    });
  });

  it("switches to Socket Mode when an app token is set", () => {
    expect(loadConfig({ SLACK_APP_TOKEN: "xapp-1-abc" }).slack.mode).toBe("socket");
  });

  it("returns a frozen object", () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.sources.catalogs)).toBe(true);
  });

  it("redacts secrets for printing and lists them for scrubbing", () => {
    const config = loadConfig(secrets);
    const printed = JSON.stringify(redactConfig(config));
    for (const value of [
      "xoxb-123-456-abcdef",
      "8f742231b10e8888abcd99yyyzzz85a5",
      "s3cr3t-value",
      "hook-token-xyz",
      "redis-pass",
    ]) {
      expect(printed).not.toContain(value);
    }
    expect(printed).toContain(REDACTED);
    const scrubbed = scrubAllForms("upstream said: bad client bot-client:s3cr3t-value", secretValues(config));
    expect(scrubbed).not.toContain("s3cr3t-value");
  });
});

describe("BOT_CONFIG", () => {
  const yaml = [
    "defaults:",
    "  channel: C0INCIDENTS",
    "  approvers: [S0ONCALL]",
    "tables:",
    "  db.events:",
    "    flinkJob: 4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b",
    "    approvers: [U0ALICE]",
    "    followUp: { intervalSeconds: 60 }",
  ].join("\n");

  it("parses inline YAML and merges table settings over defaults", () => {
    const config = loadConfig({ BOT_CONFIG: yaml });
    const settings = tableSettings(config.bot, "db.events");
    expect(settings.channel).toBe("C0INCIDENTS");
    expect(settings.approvers).toEqual(["U0ALICE"]);
    expect(settings.followUp).toEqual({ intervalSeconds: 60, checks: 6 });
    expect(tableSettings(config.bot, "db.other").approvers).toEqual(["S0ONCALL"]);
  });

  it("reads a file when BOT_CONFIG names one", () => {
    const read: string[] = [];
    const config = loadConfig(
      { BOT_CONFIG: "/etc/iceberg-bot/bot.yaml" },
      {
        readFile: (path) => {
          read.push(path);
          return yaml;
        },
      },
    );
    expect(read).toEqual(["/etc/iceberg-bot/bot.yaml"]);
    expect(config.bot.tables["db.events"]?.flinkJob).toBe("4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b");
  });

  it("refuses unknown keys, naming the file and the line", () => {
    const text = [
      "defaults:",
      "  approvers: [U0ALICE]",
      "tables:",
      "  db.events:",
      "    aprovers: [U0BOB]",
    ].join("\n");
    expect(() => loadConfig({ BOT_CONFIG: "/etc/iceberg-bot/bot.yaml" }, { readFile: () => text })).toThrow(
      /tables\.db\.events\.aprovers: unknown key .*\(at \/etc\/iceberg-bot\/bot\.yaml:5\)/,
    );
    expect(() => loadConfig({ BOT_CONFIG: "defaults:\n  channel: C1\nextra: 1" })).toThrow(
      /extra: unknown key .*\(at BOT_CONFIG:3\)/,
    );
    expect(() => loadConfig({ BOT_CONFIG: "defaults:\n  followUp: { every: 5 }" })).toThrow(
      /defaults\.followUp\.every: unknown key \(allowed: intervalSeconds, checks\)/,
    );
  });

  it("names the bad field", () => {
    expect(() => loadConfig({ BOT_CONFIG: "tables:\n  db.events:\n    approvers: [alice]" })).toThrow(
      /BOT_CONFIG: tables\.db\.events\.approvers\.0/,
    );
  });
});
