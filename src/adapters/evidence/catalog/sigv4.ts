// AWS Signature V4 for catalogs behind AWS (Glue's Iceberg REST endpoint signs as "glue", S3
// Tables as "s3tables"), using AWS's own signer. Each request is signed as it leaves: method,
// path, query, host and body, with the current (possibly temporary) credentials.

import { createHash } from "node:crypto";
import { Sha256 } from "@aws-crypto/sha256-js";
import { SignatureV4 } from "@smithy/signature-v4";
import type { AwsCredentialProvider } from "./aws-credentials.js";

export interface SignableRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
}

export type RequestSigner = (request: SignableRequest) => Promise<Record<string, string>>;

/** Headers to add to the request: authorization, x-amz-date, x-amz-content-sha256, the session token. */
export function createSigV4Signer(options: {
  region: string;
  signingName: string;
  credentials: AwsCredentialProvider;
}): RequestSigner {
  const signer = new SignatureV4({
    service: options.signingName,
    region: options.region,
    credentials: async () => {
      const c = await options.credentials();
      return {
        accessKeyId: c.accessKeyId,
        secretAccessKey: c.secretAccessKey,
        ...(c.sessionToken ? { sessionToken: c.sessionToken } : {}),
      };
    },
    sha256: Sha256,
  });
  return async ({ method, url, headers, body }) => {
    const signed = await signer.sign(signableRequest({ method, url, headers, body }));
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(signed.headers)) {
      // undici sets Host from the URL itself; the signed value is the same.
      if (name.toLowerCase() !== "host" && headers[name] === undefined) out[name] = String(value);
    }
    return out;
  };
}

/** The request as the signer (and a verifier) reads it. */
function signableRequest({ method, url, headers, body }: SignableRequest) {
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const existing = query[key];
    query[key] =
      existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  return {
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query,
    headers: { ...headers, host: url.host, "x-amz-content-sha256": payloadHash(body) },
    ...(body !== undefined ? { body } : {}),
  };
}

function payloadHash(body: string | undefined): string {
  return createHash("sha256")
    .update(body ?? "")
    .digest("hex");
}
