// How the bot reaches the Kubernetes API: the pod's in-cluster service account (token, CA and the
// KUBERNETES_SERVICE_HOST/PORT the kubelet sets), or a kubeconfig file (server, CA, and a bearer
// token or client certificate of its current context). Files are read through an injected reader;
// the token is re-read for every request because a projected service-account token rotates.
// No secret ever goes into a message: only paths, context and user names.

import { dirname, isAbsolute, join } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import type { TlsMaterial } from "../../../core/sources/model.js";
import { CodedError, ErrorCode } from "../../../errors.js";
import { readSmallFile, refusalOf } from "../../../util/read-small-file.js";

const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * Its `ca` signs the server's certificate (absent: the system's roots); `cert` and `key` are
 * there when the kubeconfig user authenticates with a client certificate.
 */
export interface KubernetesConnection extends TlsMaterial {
  /** The API server's base URL (https in any real cluster). */
  server: URL;
  /** Accept any server certificate (a kubeconfig's insecure-skip-tls-verify). */
  insecureSkipTlsVerify?: boolean;
  /** The current bearer token, read when called; absent = no token (client certificate). */
  token?: () => string;
  /** Who the bot is, for messages: a service account, or a kubeconfig context and user. */
  identity: string;
}

export type ReadText = (path: string) => string;

export interface InClusterOptions {
  /** KUBERNETES_SERVICE_HOST and _PORT, as src/config.ts read them. */
  service?: { host: string; port: number };
  /** Where the token, ca.crt and namespace files are (default the standard mount). */
  serviceAccountDir?: string;
  readFile?: ReadText;
}

/** The pod's own service account: fails with what is missing when not running in a pod. */
export function inClusterConnection(options: InClusterOptions): KubernetesConnection {
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const read = options.readFile ?? readSmallFile;
  if (!options.service) {
    throw notConfigured(
      "KUBERNETES_SERVICE_HOST is not set, so the bot is not running in a Kubernetes pod",
      "Set kubernetes.kubeconfig in BOT_CONFIG to reach the cluster from outside, or run the bot in the cluster.",
    );
  }
  const tokenPath = join(dir, "token");
  const token = () => {
    const text = readOrFail(read, tokenPath, "the service account token").trim();
    if (text === "") throw notConfigured(`the service account token ${tokenPath} is empty`, MOUNT_HINT);
    return text;
  };
  const account = serviceAccountOf(token()); // also fails at start, not at the first listing
  const ca = readOrFail(read, join(dir, "ca.crt"), "the cluster CA");
  let namespace = "";
  try {
    namespace = read(join(dir, "namespace")).trim();
  } catch {
    // Only used to name the bot in messages.
  }
  const host = options.service.host.includes(":") ? `[${options.service.host}]` : options.service.host;
  return {
    server: new URL(`https://${host}:${options.service.port}`),
    ca,
    token,
    identity: account
      ? `service account ${account}`
      : namespace
        ? `the service account of namespace ${namespace}`
        : "the pod's service account",
  };
}

/**
 * "namespace/name" from a service account token's `sub` claim (system:serviceaccount:ns:name), to
 * name the bot in messages; only the claim is read, the token itself never leaves.
 */
function serviceAccountOf(token: string): string | undefined {
  const payload = token.split(".")[1];
  if (!payload) return undefined;
  try {
    const sub = (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { sub?: unknown }).sub;
    const match = typeof sub === "string" ? /^system:serviceaccount:([^:]+):([^:]+)$/.exec(sub) : null;
    return match ? `${match[1]}/${match[2]}` : undefined;
  } catch {
    return undefined;
  }
}

const MOUNT_HINT =
  "Mount the service account token in the worker pods (deploy/kubernetes/flink-discovery/worker-token.patch.yaml, docs/kubernetes.md), or set kubernetes.kubeconfig in BOT_CONFIG.";

const KUBECONFIG_HINT = "Check kubernetes.kubeconfig in BOT_CONFIG and that the file is mounted in the pod.";

/** Reads a file the connection needs; the message names the file and why, never its content. */
function readOrFail(read: ReadText, path: string, what: string, hint = MOUNT_HINT): string {
  try {
    return read(path);
  } catch (error) {
    const why = refusalOf(error);
    throw notConfigured(
      why
        ? `${what}: ${why}`
        : `cannot read ${what} at ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      hint,
      error,
    );
  }
}

// The parts of a kubeconfig this client uses; the rest is allowed and ignored, as kubectl does.
const Cluster = z.object({
  server: z.string(),
  "certificate-authority": z.string().optional(),
  "certificate-authority-data": z.string().optional(),
  "insecure-skip-tls-verify": z.boolean().optional(),
});
const Context = z.object({ cluster: z.string(), user: z.string().optional() });
const User = z
  .object({
    token: z.string().optional(),
    tokenFile: z.string().optional(),
    "client-certificate": z.string().optional(),
    "client-certificate-data": z.string().optional(),
    "client-key": z.string().optional(),
    "client-key-data": z.string().optional(),
    exec: z.unknown().optional(),
    "auth-provider": z.unknown().optional(),
    username: z.string().optional(),
  })
  .nullable()
  .transform((u) => u ?? {});

const KubeconfigSchema = z.object({
  "current-context": z.string().optional(),
  clusters: z.array(z.object({ name: z.string(), cluster: Cluster })).default([]),
  contexts: z.array(z.object({ name: z.string(), context: Context })).default([]),
  users: z.array(z.object({ name: z.string(), user: User })).default([]),
});

export interface KubeconfigOptions {
  /** The context to use; default the file's current-context. */
  context?: string;
  readFile?: ReadText;
}

/** A kubeconfig file's context: relative file paths in it are relative to the file, as kubectl reads them. */
export function kubeconfigConnection(path: string, options: KubeconfigOptions = {}): KubernetesConnection {
  const read = options.readFile ?? readSmallFile;
  const text = readOrFail(read, path, "the kubeconfig", KUBECONFIG_HINT);
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    throw badKubeconfig(path, `is not YAML (${(error as Error).message.split("\n")[0]})`);
  }
  const parsed = KubeconfigSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badKubeconfig(path, `has ${issue?.path.join(".") || "(root)"}: ${issue?.message}`);
  }
  const config = parsed.data;
  const contextName = options.context ?? config["current-context"];
  if (!contextName) throw badKubeconfig(path, "has no current-context; set kubernetes.context in BOT_CONFIG");
  const context = config.contexts.find((c) => c.name === contextName)?.context;
  if (!context) {
    const known = config.contexts.map((c) => c.name).join(", ") || "none";
    throw badKubeconfig(path, `has no context "${contextName}" (contexts: ${known})`);
  }
  const cluster = config.clusters.find((c) => c.name === context.cluster)?.cluster;
  if (!cluster) throw badKubeconfig(path, `has no cluster "${context.cluster}" (context "${contextName}")`);
  const user = context.user ? config.users.find((u) => u.name === context.user)?.user : {};
  if (!user) throw badKubeconfig(path, `has no user "${context.user}" (context "${contextName}")`);

  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch {
    throw badKubeconfig(path, `names a server that is not a URL in cluster "${context.cluster}"`);
  }
  const resolve = (file: string) => (isAbsolute(file) ? file : join(dirname(path), file));
  const fileOrData = (file: string | undefined, data: string | undefined, what: string) => {
    if (data !== undefined) return Buffer.from(data, "base64").toString("utf8");
    if (file !== undefined)
      return readOrFail(read, resolve(file), `${what} named in ${path}`, KUBECONFIG_HINT);
    return undefined;
  };

  if (user.exec !== undefined || user["auth-provider"] !== undefined || user.username !== undefined) {
    throw badKubeconfig(
      path,
      `gives user "${context.user}" an exec plugin, auth provider or password, which the bot does not run; give it a token, tokenFile or client certificate (for example a service account token)`,
    );
  }
  const cert = fileOrData(
    user["client-certificate"],
    user["client-certificate-data"],
    "the client certificate",
  );
  const key = fileOrData(user["client-key"], user["client-key-data"], "the client key");
  if ((cert === undefined) !== (key === undefined)) {
    throw badKubeconfig(
      path,
      `gives user "${context.user}" a client certificate without its key, or a key without its certificate`,
    );
  }
  let token: (() => string) | undefined;
  if (user.token !== undefined) {
    const fixed = user.token;
    token = () => fixed;
  } else if (user.tokenFile !== undefined) {
    const tokenPath = resolve(user.tokenFile);
    token = () => readOrFail(read, tokenPath, `the token file named in ${path}`, KUBECONFIG_HINT).trim();
    token();
  }
  return {
    server,
    ca: fileOrData(cluster["certificate-authority"], cluster["certificate-authority-data"], "the cluster CA"),
    cert,
    key,
    insecureSkipTlsVerify: cluster["insecure-skip-tls-verify"] === true,
    token,
    identity: `kubeconfig context "${contextName}" (user "${context.user ?? "none"}")`,
  };
}

function badKubeconfig(path: string, what: string): CodedError {
  return notConfigured(
    `the kubeconfig ${path} ${what}`,
    "Fix the kubeconfig, or point kubernetes.kubeconfig in BOT_CONFIG at another one.",
  );
}

function notConfigured(message: string, hint: string, cause?: unknown): CodedError {
  return new CodedError(ErrorCode.ConfigInvalid, `Kubernetes discovery: ${message}`, { hint, cause });
}
