import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../../src/adapters/log.js";
import { loadConfig } from "../../../src/config.js";

describe("bot logs", () => {
  it("never write a secret, whether in a known field or inside free text", () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-very-secret-token",
      SLACK_SIGNING_SECRET: "signing-secret-value",
      ALERT_WEBHOOK_TOKEN: "webhook-secret-value",
      REDIS_URL: "redis://:redis-password-value@127.0.0.1:6379",
    });
    let written = "";
    const destination = new Writable({
      write(chunk, _encoding, done) {
        written += String(chunk);
        done();
      },
    });
    const log = createLogger(config, { destination, level: "info" });
    log.info(
      { headers: { authorization: "Bearer webhook-secret-value" }, token: "xoxb-very-secret-token" },
      "request",
    );
    log.warn({ err: "upstream said signing-secret-value was wrong; redis-password-value too" }, "oops");
    log.info("plain line");
    expect(written).not.toMatch(
      /xoxb-very-secret-token|signing-secret-value|webhook-secret-value|redis-password-value/,
    );
    expect(written).toContain("[redacted]");
    expect(written.trim().split("\n")).toHaveLength(3);
  });
});
