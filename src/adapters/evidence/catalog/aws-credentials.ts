// AWS credentials for SigV4-signed catalogs, found the way AWS's own SDKs find them: static keys
// from the environment, else a web identity token file exchanged with STS
// (AssumeRoleWithWebIdentity, as EKS pod identity / IRSA sets up), else the container credentials
// endpoint (ECS, EKS Pod Identity). Temporary credentials are cached until shortly before they
// expire; one exchange at a time.

import type { AwsEnv } from "../../../config.js";
import { CodedError, ErrorCode } from "../../../errors.js";
import { readSmallFile } from "../../../util/read-small-file.js";
import { type HttpSourceOptions, sendRaw } from "../http.js";

interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When temporary credentials lapse (ms since the epoch). */
  expiresAtMs?: number;
}

export interface AwsCredentialProvider {
  (): Promise<AwsCredentials>;
  /** Values that must never appear in a message. */
  secrets(): string[];
}

/** The ECS / EKS container credentials host a relative URI is read from. */
const CONTAINER_HOST = "http://169.254.170.2";
/** Renew temporary credentials this long before they expire. */
const RENEW_MARGIN_MS = 5 * 60_000;

export function createAwsCredentialProvider(
  aws: AwsEnv,
  region: string,
  http: HttpSourceOptions,
  now: () => number = Date.now,
): AwsCredentialProvider {
  async function load(): Promise<AwsCredentials> {
    if (aws.accessKeyId && aws.secretAccessKey) {
      return {
        accessKeyId: aws.accessKeyId,
        secretAccessKey: aws.secretAccessKey,
        ...(aws.sessionToken ? { sessionToken: aws.sessionToken } : {}),
      };
    }
    if (aws.webIdentityTokenFile && aws.roleArn) return webIdentity(aws, region, http, now);
    if (aws.containerFullUri || aws.containerRelativeUri) return container(aws, http);
    throw new CodedError(ErrorCode.AuthFailed, "No AWS credentials to sign catalog requests with", {
      hint: "Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN, or run where AWS_CONTAINER_CREDENTIALS_FULL_URI/RELATIVE_URI is set.",
    });
  }

  const credentials = renewing(
    load,
    (held) => held.expiresAtMs !== undefined && now() >= held.expiresAtMs - RENEW_MARGIN_MS,
  );
  const provider = (() => credentials.get()) as AwsCredentialProvider;
  provider.secrets = () =>
    [
      aws.secretAccessKey,
      aws.sessionToken,
      aws.containerAuthToken,
      credentials.held()?.secretAccessKey,
      credentials.held()?.sessionToken,
    ].filter((v): v is string => typeof v === "string" && v.length > 0);
  return provider;
}

/**
 * A value loaded when first asked for and kept until `stale` says it is not fresh enough any more;
 * concurrent askers share one load, and a failed load keeps nothing.
 */
export function renewing<T>(load: () => Promise<T>, stale: (held: T) => boolean) {
  let held: T | undefined;
  let inFlight: Promise<T> | undefined;
  return {
    async get(): Promise<T> {
      if (held !== undefined && !stale(held)) return held;
      inFlight ??= load()
        .then((value) => (held = value))
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    },
    held: () => held,
    forget(): void {
      held = undefined;
    },
  };
}

async function webIdentity(
  aws: AwsEnv,
  region: string,
  http: HttpSourceOptions,
  now: () => number,
): Promise<AwsCredentials> {
  const token = readSmallFile(aws.webIdentityTokenFile as string).trim();
  const endpoint = new URL(aws.stsEndpoint ?? `https://sts.${region}.amazonaws.com/`);
  // AssumeRoleWithWebIdentity is not signed: the token is the proof.
  const form = new URLSearchParams({
    Action: "AssumeRoleWithWebIdentity",
    Version: "2011-06-15",
    RoleArn: aws.roleArn as string,
    RoleSessionName: aws.roleSessionName ?? `iceberg-bot-${now()}`,
    WebIdentityToken: token,
  });
  const response = await sendRaw(
    { ...http, headers: {} },
    {
      method: "POST",
      url: endpoint,
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/xml" },
      body: form.toString(),
    },
  );
  if (response.status !== 200) {
    const code = xmlText(response.body, "Code");
    throw new CodedError(
      ErrorCode.AuthFailed,
      `AWS STS refused AssumeRoleWithWebIdentity for ${aws.roleArn} (HTTP ${response.status}${code ? `, ${code}` : ""})`,
      {
        hint: "Check AWS_ROLE_ARN, the role's trust policy for this service account, and AWS_WEB_IDENTITY_TOKEN_FILE.",
        details: { status: response.status },
      },
    );
  }
  const accessKeyId = xmlText(response.body, "AccessKeyId");
  const secretAccessKey = xmlText(response.body, "SecretAccessKey");
  const sessionToken = xmlText(response.body, "SessionToken");
  const expiration = xmlText(response.body, "Expiration");
  if (!accessKeyId || !secretAccessKey || !sessionToken)
    throw new CodedError(ErrorCode.AuthFailed, "AWS STS answered without credentials", {
      hint: "Check AWS_ENDPOINT_URL_STS points at STS.",
    });
  return {
    accessKeyId,
    secretAccessKey,
    sessionToken,
    ...(expiration ? { expiresAtMs: Date.parse(expiration) } : {}),
  };
}

async function container(aws: AwsEnv, http: HttpSourceOptions): Promise<AwsCredentials> {
  const url = new URL(aws.containerFullUri ?? `${CONTAINER_HOST}${aws.containerRelativeUri}`);
  const authorization = aws.containerAuthTokenFile
    ? readSmallFile(aws.containerAuthTokenFile).trim()
    : aws.containerAuthToken;
  const response = await sendRaw(
    { ...http, headers: {} },
    { url, headers: { accept: "application/json", ...(authorization ? { authorization } : {}) } },
  );
  if (response.status !== 200)
    throw new CodedError(
      ErrorCode.AuthFailed,
      `The container credentials endpoint answered HTTP ${response.status}`,
      {
        hint: "Check AWS_CONTAINER_CREDENTIALS_FULL_URI/RELATIVE_URI and the authorization token.",
        details: { status: response.status },
      },
    );
  let body: { AccessKeyId?: string; SecretAccessKey?: string; Token?: string; Expiration?: string };
  try {
    body = JSON.parse(response.body) as typeof body;
  } catch {
    body = {};
  }
  if (!body.AccessKeyId || !body.SecretAccessKey)
    throw new CodedError(
      ErrorCode.AuthFailed,
      "The container credentials endpoint answered without credentials",
      {
        hint: "Check AWS_CONTAINER_CREDENTIALS_FULL_URI/RELATIVE_URI.",
      },
    );
  return {
    accessKeyId: body.AccessKeyId,
    secretAccessKey: body.SecretAccessKey,
    ...(body.Token ? { sessionToken: body.Token } : {}),
    ...(body.Expiration ? { expiresAtMs: Date.parse(body.Expiration) } : {}),
  };
}

function xmlText(xml: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  return match?.[1]
    ?.replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}
