import { describe, expect, it } from "vitest";
import { scrubAllForms } from "../../src/util/secret-forms.js";

const SECRET = 's3cr3t/Pa+ss=wörd"x';
const CLIENT = "iceberg-bot";

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const b64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");

describe("scrubAllForms finds a secret in every encoding", () => {
  const forms: Array<[string, string]> = [
    ["as typed", SECRET],
    ["URL-encoded", encodeURIComponent(SECRET)],
    [
      "URL-encoded, lower-case hex",
      encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    ],
    ["form-encoded", new URLSearchParams({ client_secret: SECRET }).toString()],
    ["double URL-encoded", encodeURIComponent(encodeURIComponent(SECRET))],
    ["JSON-escaped", JSON.stringify({ client_secret: SECRET })],
    ["JSON inside JSON", JSON.stringify(JSON.stringify({ client_secret: SECRET }))],
    ["base64", b64(SECRET)],
    ["base64url", b64url(SECRET)],
    ["Basic client:secret", `Basic ${b64(`${CLIENT}:${SECRET}`)}`],
    ["url-safe Basic, other user", `Basic ${b64url(`someone-else:${SECRET}`)}`],
    // RFC 6749 2.3.1: the OAuth2 client-credentials Basic header form-encodes id and secret first.
    [
      "OAuth2 Basic of the form-encoded secret",
      `Basic ${b64(`${CLIENT}:${new URLSearchParams({ s: SECRET }).toString().slice(2)}`)}`,
    ],
    ["base64 of the URL-encoded secret", b64(`x${encodeURIComponent(SECRET)}`)],
    ["base64 inside a blob", b64(`{"grant":"client_credentials","secret":"${SECRET}","n":1}`)],
  ];

  for (const [name, text] of forms) {
    it(`removes it ${name}`, () => {
      const line = `upstream said: ${text} (end)`;
      const out = scrubAllForms(line, [SECRET]);
      expect(out).toContain("[redacted]");
      expect(out.startsWith("upstream said: ")).toBe(true);
      expect(out.endsWith(" (end)")).toBe(true);
      // Nothing of the secret is left in any of the encodings checked above.
      for (const [, form] of forms) {
        if (form.length >= 8) expect(out).not.toContain(form);
      }
      expect(out).not.toContain("s3cr3t");
      expect(out).not.toContain(b64(SECRET).slice(4, 16));
    });
  }

  it("leaves text without the secret exactly as it was", () => {
    const text = `Basic ${b64("alice:other-password")} and %2Fpath and "json" ${b64url("unrelated")}`;
    expect(scrubAllForms(text, [SECRET])).toBe(text);
  });
});
