// The `kubernetes` section of BOT_CONFIG: where the Flink Kubernetes Operator's resources are
// listed (docs/kubernetes.md). Absent, nothing is discovered. Pure: the files it names are read by
// the adapter (src/adapters/evidence/kubernetes), the environment by src/config.ts.

import { z } from "zod";
import { HttpAuthSchema, TlsSchema } from "./sources/config-schema.js";

/**
 * A DNS label as Kubernetes defines it (RFC 1123): what a namespace name is, and what a
 * FlinkDeployment's name must be for its `<name>-rest` Service to exist. Names from the API are
 * checked against it before they go anywhere near a URL.
 */
export const RFC1123_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const NAMESPACE = RFC1123_LABEL;

/** A label key (optional DNS-subdomain prefix and "/") and value, as Kubernetes allows them. */
const LABEL_KEY = /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

/**
 * The auth and TLS for the JobManagers of some namespaces (optionally only the FlinkDeployments
 * whose labels match): a credential reaches only the namespaces named with it, never every
 * JobManager anyone can create.
 */
const FlinkAccessRuleSchema = z.strictObject({
  namespaces: z
    .array(z.string().refine((v) => NAMESPACE.test(v), "a Kubernetes namespace name (lower case)"))
    .min(1, "name the namespaces this credential is for"),
  /** Only FlinkDeployments carrying every one of these labels (label values as written). */
  matchLabels: z
    .record(
      z.string().regex(LABEL_KEY, "a Kubernetes label key"),
      z.string().regex(LABEL_VALUE, "a Kubernetes label value"),
    )
    .optional(),
  /** The REST API's auth (basic or bearer, the secret from an environment variable or file). */
  auth: HttpAuthSchema.optional(),
  /** TLS (a private CA, a client certificate); with it, these JobManagers are only called over https. */
  tls: TlsSchema.optional(),
});

export type FlinkAccessRule = z.infer<typeof FlinkAccessRuleSchema>;

/** Where the one-for-all settings went. */
const ONE_FOR_ALL =
  "gave one credential to every discovered JobManager; use flinkAccess: [{namespaces: [...], auth, tls}] (docs/kubernetes.md)";

/** The placeholders a REST URL template may use. */
const REST_URL_PLACEHOLDERS = ["name", "namespace", "port"] as const;

export const KubernetesSettingsSchema = z
  .strictObject({
    /**
     * Namespaces whose FlinkDeployments and FlinkSessionJobs are listed; ["*"] lists every
     * namespace at once (needs the ClusterRole variant of the RBAC).
     */
    namespaces: z
      .array(
        z
          .string()
          .refine((v) => v === "*" || NAMESPACE.test(v), "a Kubernetes namespace name (lower case), or *"),
      )
      .min(1, "name at least one namespace, or * for all"),
    /** A kubeconfig file; absent = the pod's in-cluster service account. */
    kubeconfig: z.string().trim().min(1).optional(),
    /** The kubeconfig context to use; absent = its current-context. */
    context: z.string().trim().min(1).optional(),
    /** Seconds between two listings: jobs come and go with their deployments. */
    refreshSeconds: z.number().int().min(5).max(3600).default(60),
    /** Items per list request (the API's `limit`; the rest follows through `continue`). */
    pageSize: z.number().int().min(1).max(1000).default(100),
    /**
     * Where the bot reaches a JobManager's REST API, e.g. through an ingress when it runs outside
     * the cluster; default `http://{name}-rest.{namespace}.svc:{port}`, the operator's REST Service.
     */
    restUrlTemplate: z
      .string()
      .trim()
      .refine(
        (v) =>
          [...v.matchAll(/\{([^}]*)\}/g)].every((m) =>
            (REST_URL_PLACEHOLDERS as readonly string[]).includes(m[1] ?? ""),
          ),
        `only the placeholders {${REST_URL_PLACEHOLDERS.join("}, {")}}`,
      )
      .refine((v) => /^https?:\/\/[^/]/.test(v), "an http:// or https:// URL template")
      .refine(
        (v) => !/^https?:\/\/[^/?#]*@/.test(v),
        "no user:password@ in the template: give credentials in flinkAccess",
      )
      .optional(),
    /**
     * How the discovered JobManagers' REST APIs are reached, per namespace (and label): the first
     * rule that matches a deployment gives its auth and TLS; none matching = no auth, no client TLS.
     */
    flinkAccess: z.array(FlinkAccessRuleSchema).default([]),
    /** Most items one listing of a resource may return, over all its pages. */
    maxItems: z.number().int().min(1).max(100_000).default(5000),
    /** Most JobManagers called at once by one Flink listing. */
    maxConcurrentJobManagers: z.number().int().min(1).max(64).default(8),
    flinkAuth: z
      .unknown()
      .optional()
      .refine((v) => v === undefined, `flinkAuth ${ONE_FOR_ALL}`),
    flinkTls: z
      .unknown()
      .optional()
      .refine((v) => v === undefined, `flinkTls ${ONE_FOR_ALL}`),
  })
  .refine((k) => !k.namespaces.includes("*") || k.namespaces.length === 1, {
    message: "* (every namespace) stands alone: list either * or namespace names",
    path: ["namespaces"],
  })
  .refine((k) => new Set(k.namespaces).size === k.namespaces.length, {
    message: "a namespace is listed twice",
    path: ["namespaces"],
  })
  .refine(
    (k) =>
      k.restUrlTemplate === undefined ||
      !k.flinkAccess.some((rule) => rule.tls) ||
      k.restUrlTemplate.startsWith("https://"),
    {
      message: "flinkAccess gives TLS to some JobManagers: the template must be https://, never http://",
      path: ["restUrlTemplate"],
    },
  )
  .refine((k) => k.context === undefined || k.kubeconfig !== undefined, {
    message: "context needs a kubeconfig (the in-cluster service account has no contexts)",
    path: ["context"],
  });

export type KubernetesSettings = z.infer<typeof KubernetesSettingsSchema>;

/** Every namespace at once. */
export const ALL_NAMESPACES = "*";

/**
 * The access rule for a JobManager: the first naming its namespace whose labels all match; labels
 * unknown (a session job whose deployment was not listed) match only a rule without matchLabels.
 */
export function accessRuleFor<
  R extends { namespaces: readonly string[]; matchLabels?: Record<string, string> },
>(
  rules: readonly R[],
  namespace: string,
  labels: Readonly<Record<string, string>> | undefined,
): R | undefined {
  return rules.find(
    (rule) =>
      rule.namespaces.includes(namespace) &&
      Object.entries(rule.matchLabels ?? {}).every(([key, value]) => labels?.[key] === value),
  );
}
