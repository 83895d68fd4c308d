// Hostile upstream text through the whole bot (real Redis, the simulated lakehouse, the Slack
// stand-in): a catalog that echoes our token URL-encoded, base64-encoded and JSON-escaped, next to
// markup, control and bidi characters, and a Flink that cannot be reached. People see neither the
// secret, nor the formatting tricks, nor the internal addresses; the logs keep the addresses.

import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/adapters/log.js";
import { loadConfig } from "../../../src/config.js";
import { REDIS_URL } from "../../support/redis.js";
import { alertmanagerBody, CHANNEL, eventually, type Harness, postAlert, startHarness } from "./harness.js";

const SECRET = 'tok3n/with+plus=and"quote-9f8e7d6c';
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const b64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");
const HOSTILE = [
  `rejected client_secret=${encodeURIComponent(SECRET)}&scope=catalog`,
  `Authorization: Basic ${b64(`iceberg-bot:${SECRET}`)}`,
  `token ${b64url(SECRET)}`,
  `echo ${JSON.stringify({ token: SECRET })}`,
  "*URGENT* _now_ ~x~ <!channel> <https://evil.example|login>",
  "\u202etxt.exe \u0007\u001b[31m",
].join("; ");

/** Every form of the secret a leak would take. */
const SECRET_FORMS = [
  SECRET,
  encodeURIComponent(SECRET),
  JSON.stringify(SECRET).slice(1, -1),
  b64(SECRET).slice(0, 16),
  b64url(SECRET).slice(0, 16),
  b64(`iceberg-bot:${SECRET}`).slice(8, 28),
];

describe("outside text and secrets on the way to Slack and the logs", () => {
  let h: Harness;
  const lines: string[] = [];

  beforeAll(async () => {
    const logConfig = loadConfig({ ICEBERG_CATALOG_TOKEN: SECRET, REDIS_URL, LOG_LEVEL: "info" });
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    h = await startHarness("outside-text", {
      scenario: "competing-appends",
      env: { ICEBERG_CATALOG_TOKEN: SECRET },
      botOptions: { log: createLogger(logConfig, { destination }) },
    });
    h.lakehouse!.faults.inject({
      service: "catalog",
      method: "GET",
      path: "^/v1/.*tables/events$",
      kind: "status",
      status: 400,
      body: {
        error: {
          message: `see ${h.lakehouse!.urls.catalog}/v1/oauth/tokens; ${HOSTILE}`,
          type: "BadRequestException",
          code: 400,
        },
      },
    });
    h.lakehouse!.faults.inject({ service: "flink", path: "^/", kind: "reset" });
  });

  afterAll(async () => {
    await h.close();
  });

  it("posts the failure without the secret, the markup, the controls or the addresses", async () => {
    const fired = await postAlert(
      h,
      alertmanagerBody([{ table: "db.events", labels: { job_name: "events-ingest" } }]),
    );
    expect(fired.status).toBe(202);
    const posted = await eventually(() => {
      const root = h.standIn.messages(CHANNEL).find((m) => !m.thread_ts && /db\.events/.test(m.text));
      // The diagnosis reply, not the root card: the card names the failing source first.
      const replies = root ? h.standIn.thread(CHANNEL, root.ts).filter((m) => m.ts !== root.ts) : [];
      const said = replies.map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`).join("\n");
      return /BadRequestException|rejected|Could not read/.test(said) ? said : undefined;
    }, "the catalog failure in the thread");
    // Everything the bot sent to Slack, not only what is displayed.
    const sent = JSON.stringify(h.standIn.calls.map((c) => c.args));

    for (const form of SECRET_FORMS) {
      expect(sent, form).not.toContain(form);
    }
    expect(posted).toContain("[redacted]");
    expect(sent).not.toMatch(/\u202e|\\u202e|\\u0007|\\u001b/);
    expect(sent).not.toContain("<!channel>");
    // The upstream text is long, so it is shown as a code block: its markup is inert there, and
    // nowhere outside a code block does it appear as markup.
    const outsideCode = posted.replace(/```[\s\S]*?```/g, "");
    expect(outsideCode).not.toContain("*URGENT*");
    expect(posted).toMatch(/```[^`]*\*URGENT\*[^`]*```/);
    expect(sent).not.toContain(new URL(h.lakehouse!.urls.flink).host);
    expect(sent).not.toContain(new URL(h.lakehouse!.urls.catalog).host);
    // An address quoted by the upstream is named, not shown.
    expect(posted).toContain("see the catalog");
  });

  it("keeps the secret out of the log lines and the source address in them", async () => {
    await eventually(() => lines.some((l) => /evidence source unavailable/.test(l)), "the source log line");
    const log = lines.join("");
    for (const form of SECRET_FORMS) {
      expect(log, form).not.toContain(form);
    }
    const flinkLine = lines.find((l) => /evidence source unavailable/.test(l) && /"source":"flink"/.test(l));
    expect(flinkLine).toContain(new URL(h.lakehouse!.urls.flink).host);
  });
});

describe("internal addresses of named sources on the way to Slack", () => {
  let h: Harness | undefined;
  afterAll(async () => {
    await h?.close();
  });

  it("names a named cluster or catalog whose address an error quotes, never shows the address", async () => {
    h = await startHarness("named-addresses", { scenario: "multi-cluster-platform" });
    const lakehouse = h.lakehouse!;
    const catalogUrl = lakehouse.named.catalogs["lake-eu"] as string;
    // The catalog that holds the table quotes its own address; one Flink cluster cannot be reached.
    lakehouse.faults.inject({
      service: "catalog",
      server: "lake-eu",
      method: "GET",
      path: "^/v1/.*tables/orders$",
      kind: "status",
      status: 400,
      body: { error: { message: `see ${catalogUrl}/v1/config`, type: "BadRequestException", code: 400 } },
    });
    lakehouse.faults.inject({ service: "flink", server: "flink-us", path: "^/", kind: "reset" });
    const fired = await postAlert(h, alertmanagerBody([{ table: "sales.orders" }]));
    expect(fired.status).toBe(202);
    const harness = h;
    const posted = await eventually(() => {
      const root = harness.standIn
        .messages(CHANNEL)
        .find((m) => !m.thread_ts && /sales\.orders/.test(m.text));
      const replies = root ? harness.standIn.thread(CHANNEL, root.ts).filter((m) => m.ts !== root.ts) : [];
      const said = replies.map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`).join("\n");
      return /BadRequestException|Could not read/.test(said) ? said : undefined;
    }, "the catalog failure in the thread");
    const sent = JSON.stringify(harness.standIn.calls.map((c) => c.args));
    for (const url of [
      ...Object.values(lakehouse.named.catalogs),
      ...Object.values(lakehouse.named.flink),
      ...Object.values(lakehouse.named.connect),
    ]) {
      const host = new URL(url as string).host;
      // Neither as it is nor defanged, as upstream text quoting a link would be.
      expect(sent).not.toContain(host);
      expect(sent).not.toContain(host.replaceAll(".", "[.]"));
    }
    expect(posted).toContain("see the catalog lake-eu");
  });
});
