// Signs a request body the way Slack does (v0 HMAC-SHA256 over "v0:<ts>:<raw body>"): the one
// signer the simulated person, the tests and the benchmarks send signed requests with.

import { createHmac } from "node:crypto";

function slackSignature(secret: string, timestampSeconds: number, rawBody: string): string {
  const hash = createHmac("sha256", secret).update(`v0:${timestampSeconds}:${rawBody}`).digest("hex");
  return `v0=${hash}`;
}

/** The headers of a signed Slack request. */
export function signedHeaders(
  secret: string,
  rawBody: string,
  contentType: string,
  timestampSeconds = Math.floor(Date.now() / 1000),
): Record<string, string> {
  return {
    "content-type": contentType,
    "x-slack-request-timestamp": String(timestampSeconds),
    "x-slack-signature": slackSignature(secret, timestampSeconds, rawBody),
  };
}
