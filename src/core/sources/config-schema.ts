// BOT_CONFIG's `sources:` section as written: names, URLs, and where each secret is read from
// (an environment variable or a file), never the secret itself. config.ts resolves the names
// into a SourceSpecs (model.ts).

import { z } from "zod";

const SourceName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, "a name of letters, digits, '.', '_' or '-' (up to 63)");
/** True when a URL carries user:password@ (or user@): a credential where no secret may be. */
function hasUserInfo(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { username, password } = new URL(url);
  return username !== "" || password !== "";
}

/** A source URL: http(s), and never with credentials in it (they would be logged, and go wherever it points). */
export function sourceUrl(instead: string) {
  return z
    .url({ protocol: /^https?$/, error: "an http:// or https:// URL" })
    .refine((url) => !hasUserInfo(url), {
      message: `credentials in a URL are refused (no secrets in BOT_CONFIG or the URL): remove user:password@ and use ${instead}`,
    });
}

const HttpUrl = sourceUrl(
  "auth: (basic with passwordEnv or passwordFile, or bearer with tokenEnv or tokenFile)",
);
const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name");
const FilePath = z.string().min(1, "a file path");

/** A key that would hold a secret inline: always refused, with what to write instead. */
const inline = (instead: string) =>
  z
    .unknown()
    .optional()
    .refine((value) => value === undefined, {
      message: `secrets are never written in BOT_CONFIG: use ${instead} instead`,
    });

/** Exactly one of `<key>Env` and `<key>File`. */
function oneSecret<T extends z.ZodObject>(schema: T, key: string) {
  return schema.superRefine((value, ctx) => {
    const record = value as Record<string, unknown>;
    const given = [`${key}Env`, `${key}File`].filter((k) => record[k] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({
        code: "custom",
        message:
          given.length === 0
            ? `give ${key}Env (an environment variable) or ${key}File (a file) holding the ${key}`
            : `give ${key}Env or ${key}File, not both`,
      });
  });
}

const BasicAuth = oneSecret(
  z.strictObject({
    type: z.literal("basic"),
    username: z.string().min(1),
    passwordEnv: EnvName.optional(),
    passwordFile: FilePath.optional(),
    password: inline("passwordEnv or passwordFile"),
  }),
  "password",
);

const BearerAuth = oneSecret(
  z.strictObject({
    type: z.literal("bearer"),
    tokenEnv: EnvName.optional(),
    tokenFile: FilePath.optional(),
    token: inline("tokenEnv or tokenFile"),
  }),
  "token",
);

const OAuth2Auth = oneSecret(
  z.strictObject({
    type: z.literal("oauth2"),
    clientId: z.string().min(1),
    clientSecretEnv: EnvName.optional(),
    clientSecretFile: FilePath.optional(),
    clientSecret: inline("clientSecretEnv or clientSecretFile"),
    credential: inline("clientId with clientSecretEnv or clientSecretFile"),
    tokenUrl: HttpUrl.optional(),
    scope: z.string().min(1).optional(),
  }),
  "clientSecret",
);

const SigV4Auth = z.strictObject({
  type: z.literal("sigv4"),
  /** AWS region (e.g. eu-west-1); AWS_REGION when absent. */
  region: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, "an AWS region such as eu-west-1")
    .optional(),
  /** The service name signed for: glue (Glue's Iceberg REST endpoint), s3tables (S3 Tables). */
  signingName: z.string().min(1).default("glue"),
  accessKeyId: inline("the AWS credential environment variables or a web identity token file"),
  secretAccessKey: inline("the AWS credential environment variables or a web identity token file"),
});

const NoAuth = z.strictObject({ type: z.literal("none") });

export const HttpAuthSchema = z.discriminatedUnion("type", [NoAuth, BasicAuth, BearerAuth]);
const CatalogAuthSchema = z.discriminatedUnion("type", [NoAuth, BearerAuth, OAuth2Auth, SigV4Auth]);

export const TlsSchema = z
  .strictObject({
    /** Client certificate and key (PEM) for mutual TLS. */
    certFile: FilePath.optional(),
    keyFile: FilePath.optional(),
    /** CA bundle (PEM) the server's certificate is checked against. */
    caFile: FilePath.optional(),
    key: inline("keyFile"),
  })
  .refine((tls) => (tls.certFile === undefined) === (tls.keyFile === undefined), {
    message: "certFile and keyFile go together (the client certificate and its key)",
  });

const HttpSourceSchema = z.strictObject({
  name: SourceName,
  url: HttpUrl,
  auth: HttpAuthSchema.optional(),
  tls: TlsSchema.optional(),
});

const CatalogSourceSchema = z.strictObject({
  name: SourceName,
  url: HttpUrl,
  warehouse: z.string().min(1).optional(),
  /** The catalog's path prefix, when the catalog's /v1/config does not give it. */
  prefix: z.string().min(1).optional(),
  auth: CatalogAuthSchema.optional(),
  tls: TlsSchema.optional(),
  /** Tables (`namespace.table`) that live in this catalog. */
  tables: z.array(z.string().regex(/^[^.\s]+(\.[^.\s]+)+$/, "namespace.table")).default([]),
  /** Namespaces (and everything under them) that live in this catalog. */
  namespaces: z.array(z.string().min(1)).default([]),
  default: z.boolean().default(false),
  /** Swept by the table-health sweep. */
  sweep: z.boolean().default(true),
});

function uniqueNames<T extends z.ZodType<{ name: string }[]>>(list: T) {
  return list.superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      if (seen.has(item.name))
        ctx.addIssue({ code: "custom", path: [i, "name"], message: `the name ${item.name} is used twice` });
      seen.add(item.name);
    });
  });
}

export const SourcesConfigSchema = z
  .strictObject({
    flink: uniqueNames(z.array(HttpSourceSchema)).default([]),
    connect: uniqueNames(z.array(HttpSourceSchema)).default([]),
    prometheus: uniqueNames(z.array(HttpSourceSchema)).default([]),
    catalogs: uniqueNames(z.array(CatalogSourceSchema)).default([]),
  })
  .superRefine((sources, ctx) => {
    const defaults = sources.catalogs.filter((c) => c.default);
    if (defaults.length > 1)
      ctx.addIssue({
        code: "custom",
        path: ["catalogs"],
        message: `only one catalog can be the default (${defaults.map((c) => c.name).join(", ")} say default: true)`,
      });
  });

export type SourcesConfig = z.infer<typeof SourcesConfigSchema>;
export type TlsConfig = z.infer<typeof TlsSchema>;

export const SOURCE_KEYS = {
  http: Object.keys(HttpSourceSchema.shape),
  catalog: Object.keys(CatalogSourceSchema.shape),
  sources: ["flink", "connect", "prometheus", "catalogs"],
} as const;
