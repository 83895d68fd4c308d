// Credentials given where they do not belong, or in a form that cannot work: a password in a
// source URL never reaches a log, and a Slack token of the wrong kind is refused at start.

import { describe, expect, it } from "vitest";
import { loadConfig, redactConfig, scrubSecrets, secretValues } from "../../src/config.js";
import { ErrorCode } from "../../src/errors.js";

describe("a password in a source URL", () => {
  const env = {
    CONNECT_REST_URL: "http://connect-user:c0nnect-pa55@connect.internal:8083",
    FLINK_REST_URL: "http://ops:fl1nk-pa55@flink:8081",
    PROMETHEUS_URL: "http://prom:pr0m-pa55@prometheus:9090",
    ICEBERG_CATALOG_URL: "https://cat:cat-pa55@catalog.example/api",
  };

  it("is redacted from the configuration logged at start", () => {
    const logged = JSON.stringify(redactConfig(loadConfig(env)));
    for (const password of ["c0nnect-pa55", "fl1nk-pa55", "pr0m-pa55", "cat-pa55"])
      expect(logged).not.toContain(password);
    expect(logged).toContain("connect.internal:8083");
  });

  it("is a secret scrubbed from free text, in its base64 Basic form too", () => {
    const secrets = secretValues(loadConfig(env));
    const basic = Buffer.from("connect-user:c0nnect-pa55").toString("base64");
    const text = scrubSecrets(`upstream echoed c0nnect-pa55 and Basic ${basic}`, secrets);
    expect(text).not.toContain("c0nnect-pa55");
    expect(text).not.toContain(basic);
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
