// The `kubernetes` section of BOT_CONFIG: where the Flink Kubernetes Operator's resources are
// listed (docs/kubernetes.md). Absent, nothing is discovered. Pure: the files it names are read by
// the adapter (src/adapters/evidence/kubernetes), the environment by src/config.ts.

import { z } from "zod";
import { HttpAuthSchema, TlsSchema } from "./sources/config-schema.js";

/** A Kubernetes namespace name (RFC 1123 label), or "*" for every namespace. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The placeholders a REST URL template may use. */
export const REST_URL_PLACEHOLDERS = ["name", "namespace", "port"] as const;

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
      .optional(),
    /**
     * How every discovered JobManager's REST API is authenticated (basic or bearer, the secret from
     * an environment variable or file), as a named Flink source's `auth`; absent = none.
     */
    flinkAuth: HttpAuthSchema.optional(),
    /** TLS for every discovered JobManager (a private CA, a client certificate), as a source's `tls`. */
    flinkTls: TlsSchema.optional(),
  })
  .refine((k) => !k.namespaces.includes("*") || k.namespaces.length === 1, {
    message: "* (every namespace) stands alone: list either * or namespace names",
    path: ["namespaces"],
  })
  .refine((k) => new Set(k.namespaces).size === k.namespaces.length, {
    message: "a namespace is listed twice",
    path: ["namespaces"],
  })
  .refine((k) => k.context === undefined || k.kubeconfig !== undefined, {
    message: "context needs a kubeconfig (the in-cluster service account has no contexts)",
    path: ["context"],
  });

export type KubernetesSettings = z.infer<typeof KubernetesSettingsSchema>;

/** Every namespace at once. */
export const ALL_NAMESPACES = "*";
