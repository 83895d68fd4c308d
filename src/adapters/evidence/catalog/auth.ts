// Catalog authentication: nothing, a fixed bearer token, or OAuth2 client credentials exchanged
// for a token that is cached, renewed shortly before it expires, and dropped after a 401/419.

import type { AwsEnv } from "../../../config.js";
import type { CatalogAuthSpec } from "../../../core/sources/model.js";
import { CodedError, ErrorCode } from "../../../errors.js";
import { currentSecret } from "../../../util/secret-file.js";
import { buildUrl, type HttpSourceOptions, sendJson } from "../http.js";
import { OAuthTokenSchema } from "../iceberg-schemas.js";
import { createAwsCredentialProvider, renewing } from "./aws-credentials.js";
import type { RequestSigner, SignableRequest } from "./sigv4.js";

export interface TokenProvider {
  /** The auth headers for one request; SigV4 signs the request itself, so it is given. */
  headers(request?: SignableRequest): Promise<Record<string, string>>;
  /** Forgets the cached token after a 401/419; true when asking again for a new one may help. */
  invalidate(): boolean;
  /** Values that must never appear in a message (tokens, the client secret). */
  secrets(): string[];
}

const DEFAULT_TTL_SECONDS = 3600;

export function createTokenProvider(
  auth: CatalogAuthSpec,
  catalogUrl: string,
  http: HttpSourceOptions,
  now: () => number = Date.now,
  aws: AwsEnv = {},
): TokenProvider {
  if (auth.kind === "none") return { headers: async () => ({}), invalidate: () => false, secrets: () => [] };
  if (auth.kind === "sigv4") {
    const credentials = createAwsCredentialProvider(aws, auth.region, http, now);
    // AWS's signer is loaded with the first signed request: no other catalog pays for loading it.
    let signer: Promise<RequestSigner> | undefined;
    const sign = async (request: SignableRequest) => {
      signer ??= import("./sigv4.js").then(({ createSigV4Signer }) =>
        createSigV4Signer({ region: auth.region, signingName: auth.signingName, credentials }),
      );
      return (await signer)(request);
    };
    return {
      headers: async (request) => (request ? sign(request) : {}),
      invalidate: () => false,
      secrets: () => credentials.secrets(),
    };
  }
  if (auth.kind === "bearer") {
    // A token file is followed: the rotated token goes with the next request.
    const token = () => currentSecret(auth.token, auth.tokenFile);
    return {
      headers: async () => ({ authorization: `Bearer ${token()}` }),
      invalidate: () => auth.tokenFile !== undefined,
      secrets: () => [auth.token, token()],
    };
  }
  return oauth2Provider(auth, catalogUrl, http, now);
}

/** OAuth2 client credentials: a token cached until shortly before it expires, one exchange at a time. */
function oauth2Provider(
  auth: Extract<CatalogAuthSpec, { kind: "oauth2" }>,
  catalogUrl: string,
  http: HttpSourceOptions,
  now: () => number,
): TokenProvider {
  const split = auth.credential.indexOf(":");
  if (split <= 0 || split === auth.credential.length - 1) {
    throw new CodedError(
      ErrorCode.ConfigInvalid,
      "ICEBERG_CATALOG_CREDENTIAL must look like client_id:client_secret",
      {
        hint: "Set it to the OAuth2 client id and secret joined by a colon.",
      },
    );
  }
  const clientId = auth.credential.slice(0, split);
  const firstSecret = auth.credential.slice(split + 1);
  // A client secret file is followed: the next token exchange uses the rotated secret.
  const clientSecret = () => currentSecret(firstSecret, auth.clientSecretFile);
  const tokenUrl = auth.tokenUrl ? new URL(auth.tokenUrl) : buildUrl(catalogUrl, "v1/oauth/tokens");

  async function fetchToken(): Promise<{ token: string; renewAtMs: number }> {
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: clientSecret(),
      scope: auth.scope || "catalog",
    });
    let body: { access_token: string; expires_in?: number };
    try {
      body = await sendJson(
        http,
        {
          method: "POST",
          url: tokenUrl,
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: form.toString(),
        },
        OAuthTokenSchema,
      );
    } catch (error) {
      throw refusedClient(error, clientId);
    }
    const ttlMs = (body.expires_in ?? DEFAULT_TTL_SECONDS) * 1000;
    // Renew a little early so a request never leaves with a token about to lapse.
    const margin = Math.min(60_000, ttlMs / 10);
    return { token: body.access_token, renewAtMs: now() + ttlMs - margin };
  }

  // One exchange at a time: concurrent requests share it.
  const cached = renewing(fetchToken, (held) => now() >= held.renewAtMs);
  return {
    headers: async () => ({ authorization: `Bearer ${(await cached.get()).token}` }),
    invalidate: () => {
      cached.forget();
      return true;
    },
    secrets: () => [firstSecret, clientSecret(), ...(cached.held() ? [cached.held()!.token] : [])],
  };
}

/** A 400/401/403 from the token endpoint: the client id, secret or scope is wrong. */
function refusedClient(error: unknown, clientId: string): unknown {
  const refused =
    error instanceof CodedError &&
    (error.code === ErrorCode.SourceHttpStatus || error.code === ErrorCode.AuthFailed) &&
    [400, 401, 403].includes(error.details?.status as number);
  if (!refused) return error;
  return new CodedError(
    ErrorCode.AuthFailed,
    `The catalog token endpoint refused client ${clientId}: ${error.message}`,
    {
      hint: "Check ICEBERG_CATALOG_CREDENTIAL (client id and secret) and ICEBERG_CATALOG_SCOPE.",
      details: { ...error.details, clientId },
      cause: error,
    },
  );
}
