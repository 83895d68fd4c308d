// Slack's request signature, checked by us (Slack's "Verifying requests from Slack"; the same
// algorithm as bolt-js verify-request.ts): v0=HMAC-SHA256(signing secret, "v0:" + timestamp + ":"
// + the raw body), compared in constant time, and the timestamp within five minutes of our clock
// in either direction (Bolt checks only the past: a request dated ahead could be replayed until
// then). Test vector: test/unit/slack-verify.test.ts.

import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/** What Slack allows either way between its clock and ours. */
const SIGNATURE_WINDOW_SECONDS = 5 * 60;

export type Verdict = { ok: true } | { ok: false; reason: string };

export function verifySlackSignature(
  signingSecret: string,
  headers: IncomingHttpHeaders,
  rawBody: string,
  nowMs: number,
): Verdict {
  const signature = header(headers, "x-slack-signature");
  const stamp = header(headers, "x-slack-request-timestamp");
  if (signature === undefined || stamp === undefined)
    return { ok: false, reason: "missing signature headers" };
  if (!/^\d+$/.test(stamp)) return { ok: false, reason: "non-numeric timestamp" };
  const skew = Math.abs(Math.floor(nowMs / 1000) - Number(stamp));
  if (skew > SIGNATURE_WINDOW_SECONDS)
    return { ok: false, reason: "timestamp outside the five-minute window" };
  const [version, hash] = signature.split("=", 2);
  if (version !== "v0" || hash === undefined) return { ok: false, reason: "unknown signature version" };
  const expected = createHmac("sha256", signingSecret).update(`v0:${stamp}:${rawBody}`).digest();
  const given = Buffer.from(hash, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: "signature mismatch" };
  return { ok: true };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
