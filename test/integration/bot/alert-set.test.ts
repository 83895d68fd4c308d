// The card's alert line follows the set of the table's alerts still firing (by fingerprint): a
// resolve of one while another fires is not "the alert cleared", a re-fire brings the card back.
// Large notifications are taken whole; refused webhooks are counted by reason.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  alertmanagerBody,
  CHANNEL,
  eventually,
  fixedDiagnosis,
  type Harness,
  postAlert,
  startHarness,
} from "./harness.js";

describe("alerts: the card tells the truth, nothing is refused for its size", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("alert-set", { botOptions: { diagnose: fixedDiagnosis().diagnose } });
  });
  afterAll(async () => {
    await h.close();
  });

  const card = () => {
    const root = h.standIn
      .messages(CHANNEL)
      .find((m) => !m.thread_ts && !m.ephemeralUser && /db\.events/.test(m.text));
    return root ? `${root.text}\n${JSON.stringify(root.blocks)}` : "";
  };
  const send = async (alerts: Parameters<typeof alertmanagerBody>[0]) => {
    const answer = await postAlert(h, alertmanagerBody(alerts));
    expect(answer.status).toBe(202);
  };
  const A = { table: "db.events", fingerprint: "a0000000000000a1", labels: { job_name: "ingest-a" } };
  const B = { table: "db.events", fingerprint: "b0000000000000b2", labels: { job_name: "ingest-b" } };

  it("a resolve of one of two alerts keeps the card firing; the last resolve clears it; a re-fire returns", async () => {
    await send([A, B]);
    await eventually(() => /2 alerts firing/.test(card()), "the card with two alerts firing");

    await send([{ ...A, status: "resolved" }]);
    await eventually(() => /1 alert firing/.test(card()), "the card with one alert firing");
    expect(card()).not.toMatch(/alert cleared/);

    await send([{ ...B, status: "resolved" }]);
    await eventually(() => /the alert cleared/.test(card()), "the card saying the alert cleared");

    await send([A]);
    await eventually(() => /1 alert firing/.test(card()), "the card firing again");
    expect(card()).not.toMatch(/alert cleared/);
  });

  it("takes a notification with more than a thousand alerts whole", async () => {
    const many = Array.from({ length: 1200 }, (_, i) => ({
      table: "db.events",
      fingerprint: `c${i.toString(16).padStart(15, "0")}`,
    }));
    const answer = await postAlert(h, alertmanagerBody(many));
    expect(answer.status).toBe(202);
    expect(JSON.parse(answer.body)).toMatchObject({ ok: true, accepted: 1200, ignored: 0 });
    await eventually(() => /1,?201 alerts firing/.test(card()), "the card counting every alert");
  });

  it("counts refused webhooks in /metrics by reason", async () => {
    expect((await postAlert(h, alertmanagerBody([A]), { token: "wrong" })).status).toBe(401);
    expect((await postAlert(h, "{not json")).status).toBe(400);
    expect((await postAlert(h, JSON.stringify({ version: "4", alerts: "x" }))).status).toBe(400);
    expect((await postAlert(h, JSON.stringify({ version: "4", alerts: "x" }))).status).toBe(400);
    const metrics = await (await fetch(h.url("/metrics"))).text();
    const count = (reason: string) =>
      Number(
        new RegExp(
          `iceberg_bot_webhook_rejected_total\\{source="alertmanager",reason="${reason}"\\} (\\d+)`,
        ).exec(metrics)?.[1] ?? 0,
      );
    expect([count("unauthorized"), count("invalid_json"), count("invalid_body")]).toEqual([1, 1, 2]);

    // Alerts the sender left out under max_alerts are counted too.
    const truncated = JSON.parse(alertmanagerBody([A]));
    truncated.truncatedAlerts = 7;
    expect((await postAlert(h, JSON.stringify(truncated))).status).toBe(202);
    const after = await (await fetch(h.url("/metrics"))).text();
    expect(after).toMatch(
      /iceberg_bot_alerts_total\{source="alertmanager",outcome="truncated_by_sender"\} 7/,
    );
  });
});
