// Table names with a catalog in front, with two named catalogs (lake-us, the default, and lake-eu,
// which holds sales.orders) on loopback stand-ins: an alert labelled with the catalog's name or
// with the Flink job's own catalog name is diagnosed against lake-eu, and a command naming a
// catalog the bot does not read is answered with the catalogs it does.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postSigned, slashCommandBody } from "../../support/slack-signing.js";
import {
  alertmanagerBody,
  CHANNEL,
  eventually,
  type Harness,
  postAlert,
  quiescent,
  startHarness,
} from "./harness.js";

const FORM = "application/x-www-form-urlencoded";

describe("catalog.namespace.table with several named catalogs", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("catalog-prefix", { scenario: "multi-cluster-platform" });
  });
  afterAll(async () => {
    await h.close();
  });

  const roots = () =>
    h.standIn
      .messages(CHANNEL)
      .filter((m) => !m.thread_ts && !m.ephemeralUser && /sales\.orders/.test(m.text));
  const lakeUs = () => new URL(h.lakehouse!.named.catalogs["lake-us"]!).host;
  const lakeEu = () => new URL(h.lakehouse!.named.catalogs["lake-eu"]!).host;
  /** Hosts asked for the orders table since the given request count. */
  const ordersReadOn = (since: number) =>
    h
      .lakehouse!.requests.slice(since)
      .filter((r) => r.service === "catalog" && /\/tables\/orders/.test(r.path))
      .map((r) => r.headers.host);

  it("diagnoses an alert labelled lake-eu.sales.orders, and one labelled iceberg.sales.orders joins it", async () => {
    const since = h.lakehouse!.requests.length;
    const now = h.lakehouse!.clock.now();
    const body = alertmanagerBody([{ table: "lake-eu.sales.orders", fingerprint: "f0000000000000c1" }], now);
    expect((await postAlert(h, body)).status).toBe(202);
    const root = await eventually(() => roots()[0], "the incident about sales.orders");
    const diagnosis = await eventually(
      () =>
        h.standIn
          .thread(CHANNEL, root.ts)
          .find((m) => /commit conflict/i.test(`${m.text}${JSON.stringify(m.blocks)}`)),
      "the diagnosis",
    );
    expect(diagnosis.text).not.toMatch(/not a table/);
    expect(ordersReadOn(since)).toContain(lakeEu());
    expect(ordersReadOn(since)).not.toContain(lakeUs());

    const again = alertmanagerBody([{ table: "iceberg.sales.orders", fingerprint: "f0000000000000c2" }], now);
    expect((await postAlert(h, again)).status).toBe(202);
    await quiescent(h);
    expect(roots()).toHaveLength(1);
  });

  it("diagnoses /iceberg diagnose lake-eu.sales.orders against lake-eu", async () => {
    const since = h.lakehouse!.requests.length;
    const user = "U0PREFIXED";
    const ack = await postSigned(
      h.url("/slack/events"),
      h.secret,
      slashCommandBody({ text: "diagnose lake-eu.sales.orders", userId: user, channelId: CHANNEL }),
      FORM,
    );
    expect(ack.status).toBe(200);
    await eventually(() => ordersReadOn(since).includes(lakeEu()), "lake-eu asked for the table");
    await quiescent(h);
    expect(ordersReadOn(since)).not.toContain(lakeUs());
    expect(h.standIn.messages(CHANNEL).filter((m) => m.ephemeralUser === user)).toEqual([]);
  });

  it("answers a command naming a catalog it does not read with the catalogs it reads", async () => {
    const user = "U0PREFIX";
    const ack = await postSigned(
      h.url("/slack/events"),
      h.secret,
      slashCommandBody({ text: "diagnose warehouse.sales.returns", userId: user, channelId: CHANNEL }),
      FORM,
    );
    expect(ack.status).toBe(200);
    const reply = await eventually(
      () => h.standIn.messages(CHANNEL).find((m) => m.ephemeralUser === user && /returns/.test(m.text)),
      "the reply about the unknown catalog",
    );
    expect(reply.text).toMatch(
      /"warehouse" is not a catalog the bot reads; its catalogs are lake-eu, lake-us/,
    );
    expect(reply.text).toMatch(/for example lake-eu\.sales\.returns/);
  });
});
