// Credentials given where they do not belong, or in a form that cannot work: a password in a
// source URL never reaches a log, and a Slack token of the wrong kind is refused at start.

import { describe, expect, it } from "vitest";
import { loadConfig, redactConfig, secretValues } from "../../src/config.js";
import { ErrorCode } from "../../src/errors.js";
import { scrubAllForms } from "../../src/util/secret-forms.js";

describe("a password in a source URL", () => {
  const env = {
    CONNECT_REST_URL: "http://connect-user:c0nnect-pa55@connect.internal:8083",
    FLINK_REST_URL: "http://ops:fl1nk-pa55@flink:8081",
    PROMETHEUS_URL: "http://prom:pr0m-pa55@prometheus:9090",
    ICEBERG_CATALOG_URL: "https://cat:cat-pa55@catalog.example/api",
  };

  it("is refused at start, naming the setting to use instead and never the password", () => {
    let message = "";
    try {
      loadConfig(env);
    } catch (error) {
      expect((error as { code: string }).code).toBe(ErrorCode.ConfigInvalid);
      message = (error as Error).message;
    }
    for (const variable of ["CONNECT_REST_URL", "FLINK_REST_URL", "PROMETHEUS_URL", "ICEBERG_CATALOG_URL"])
      expect(message).toContain(`${variable}: credentials in a URL are refused`);
    expect(message).toContain("sources.connect: [{name, url, auth: {type: basic, username, passwordEnv}}]");
    expect(message).toContain("ICEBERG_CATALOG_TOKEN or ICEBERG_CATALOG_CREDENTIAL");
    for (const password of ["c0nnect-pa55", "fl1nk-pa55", "pr0m-pa55", "cat-pa55"])
      expect(message).not.toContain(password);
  });

  it("is refused in a named source of BOT_CONFIG too, with its auth setting to use instead", () => {
    const config = "sources:\n  flink:\n    - name: eu\n      url: http://alice:PASS-w0rd@flink-eu:8081\n";
    expect(() => loadConfig({ BOT_CONFIG: config })).toThrow(
      /sources\.flink\.0\.url: credentials in a URL are refused .*auth: \(basic with passwordEnv/,
    );
    try {
      loadConfig({ BOT_CONFIG: config });
    } catch (error) {
      expect((error as Error).message).not.toContain("PASS-w0rd");
    }
  });

  it("leaves URLs without credentials alone", () => {
    const config = loadConfig({ FLINK_REST_URL: "http://flink:8081" });
    expect(config.sources.flink[0]?.url).toBe("http://flink:8081");
    expect(JSON.stringify(redactConfig(config))).toContain("flink:8081");
    expect(secretValues(config)).toEqual([]);
    expect(scrubAllForms("nothing secret", secretValues(config))).toBe("nothing secret");
  });
});

describe("Slack tokens of the wrong kind", () => {
  const refused = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      return error as { code: string; message: string };
    }
    throw new Error("loadConfig accepted it");
  };

  it("refuses a bot token in SLACK_APP_TOKEN at start, naming the fix", () => {
    const error = refused({ SLACK_BOT_TOKEN: "xoxb-1-2-abc", SLACK_APP_TOKEN: "xoxb-9-9-wrongplace" });
    expect(error.code).toBe(ErrorCode.ConfigInvalid);
    expect(error.message).toContain("SLACK_APP_TOKEN holds a bot token (xoxb-…)");
    expect(error.message).toContain("App-Level Tokens");
    expect(error.message).not.toContain("wrongplace");
  });

  it("refuses swapped tokens and a user token as the bot token", () => {
    const swapped = refused({ SLACK_BOT_TOKEN: "xapp-1-A-1-abc", SLACK_APP_TOKEN: "xoxb-1-2-abc" });
    expect(swapped.message).toContain("the xapp- token belongs in SLACK_APP_TOKEN");
    expect(refused({ SLACK_BOT_TOKEN: "xoxp-1-2-abc" }).message).toContain("a user token (xoxp-…)");
  });

  it("accepts tokens of the right kind", () => {
    expect(
      loadConfig({ SLACK_BOT_TOKEN: "xoxb-1-2-abc", SLACK_APP_TOKEN: "xapp-1-A-1-abc" }).slack.mode,
    ).toBe("socket");
  });
});
