// Our own check of Slack's request signature, against Slack's official test vector (from the
// docs page "Verifying requests from Slack", as quoted in slackapi/bolt-js
// test/unit/receivers/ExpressReceiver.spec.ts at 9a45c3c, MIT License), with the clock injected.

import { describe, expect, it } from "vitest";
import { verifySlackSignature } from "../../src/adapters/slack/receiver/verify.js";

const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const STAMP = 1531420618;
const BODY =
  "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
const SIGNATURE = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
const headers = (signature = SIGNATURE, stamp = String(STAMP)) => ({
  "x-slack-signature": signature,
  "x-slack-request-timestamp": stamp,
});

describe("Slack request signature", () => {
  it("accepts Slack's official example at its own time", () => {
    expect(verifySlackSignature(SECRET, headers(), BODY, STAMP * 1000)).toEqual({ ok: true });
  });

  it("refuses a changed body, another secret, a bad version and missing headers", () => {
    const at = STAMP * 1000;
    expect(verifySlackSignature(SECRET, headers(), `${BODY}x`, at)).toMatchObject({
      reason: "signature mismatch",
    });
    expect(verifySlackSignature("another", headers(), BODY, at)).toMatchObject({ ok: false });
    expect(verifySlackSignature(SECRET, headers(SIGNATURE.replace("v0", "v1")), BODY, at)).toMatchObject({
      reason: "unknown signature version",
    });
    expect(verifySlackSignature(SECRET, headers("v0=abc"), BODY, at)).toMatchObject({ ok: false });
    expect(verifySlackSignature(SECRET, {}, BODY, at)).toMatchObject({ reason: "missing signature headers" });
    expect(verifySlackSignature(SECRET, headers(SIGNATURE, "soon"), BODY, at)).toMatchObject({
      reason: "non-numeric timestamp",
    });
  });

  it("refuses a request dated more than five minutes from our clock, either way", () => {
    const window = 5 * 60 * 1000;
    expect(verifySlackSignature(SECRET, headers(), BODY, STAMP * 1000 + window)).toEqual({ ok: true });
    expect(verifySlackSignature(SECRET, headers(), BODY, STAMP * 1000 - window)).toEqual({ ok: true });
    for (const at of [STAMP * 1000 + window + 1000, STAMP * 1000 - window - 1000])
      expect(verifySlackSignature(SECRET, headers(), BODY, at)).toMatchObject({
        reason: "timestamp outside the five-minute window",
      });
  });
});
