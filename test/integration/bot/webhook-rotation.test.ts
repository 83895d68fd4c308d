// Rotating ALERT_WEBHOOK_TOKEN without losing alerts: while senders move over, the bot takes the
// new token and the old one (ALERT_WEBHOOK_TOKEN=new,old), and nothing else. Both are secrets.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, redactConfig, secretValues } from "../../../src/config.js";
import { ErrorCode } from "../../../src/errors.js";
import {
  alertmanagerBody,
  fixedDiagnosis,
  type Harness,
  postAlert,
  startHarness,
  WEBHOOK_TOKEN,
} from "./harness.js";

const NEW_TOKEN = "webhook-token-after-rotation";

describe("two webhook tokens during a rotation", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("webhook-rotation", {
      botOptions: { diagnose: fixedDiagnosis().diagnose },
      env: { ALERT_WEBHOOK_TOKEN: `${NEW_TOKEN}, ${WEBHOOK_TOKEN}` },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it("accepts the new token and the old one, and refuses any other", async () => {
    const body = alertmanagerBody([{ table: "db.events" }]);
    expect((await postAlert(h, body, { token: WEBHOOK_TOKEN })).status).toBe(202);
    expect((await postAlert(h, body, { token: NEW_TOKEN })).status).toBe(202);
    expect((await postAlert(h, body, { token: `${NEW_TOKEN},${WEBHOOK_TOKEN}` })).status).toBe(401);
    expect((await postAlert(h, body, { token: "webhook-token-of-nobody" })).status).toBe(401);
    expect((await postAlert(h, body, { token: null })).status).toBe(401);
  });

  it("keeps both tokens secret", () => {
    expect(secretValues(h.config)).toEqual(expect.arrayContaining([NEW_TOKEN, WEBHOOK_TOKEN]));
    const printed = JSON.stringify(redactConfig(h.config));
    expect(printed).not.toContain(NEW_TOKEN);
    expect(printed).not.toContain(WEBHOOK_TOKEN);
  });

  it("refuses a third token or an empty one, naming the variable", () => {
    for (const value of ["a-token,b-token,c-token", "a-token,"]) {
      let error: { code?: string; message?: string } = {};
      try {
        loadConfig({ ALERT_WEBHOOK_TOKEN: value });
      } catch (e) {
        error = e as typeof error;
      }
      expect(error.code).toBe(ErrorCode.ConfigInvalid);
      expect(error.message).toContain("ALERT_WEBHOOK_TOKEN: one token, or 2 separated by a comma");
      expect(error.message).not.toContain("a-token");
    }
  });
});
