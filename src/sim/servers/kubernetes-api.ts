// A loopback stand-in of the Kubernetes API server for the Flink Kubernetes Operator's resources:
// get and list of flinkdeployments and flinksessionjobs (flink.apache.org/v1beta1), namespaced or
// across namespaces, with `limit`/`continue` pagination over a consistent snapshot (an expired
// continue token answers 410 Gone, as after an etcd compaction). Callers authenticate as the real
// server accepts them: a bearer token or, over TLS, a client certificate (CN = user, O = groups).
// Authorization evaluates real RBAC documents (Role, ClusterRole, RoleBinding, ClusterRoleBinding,
// e.g. the ones in deploy/kubernetes/flink-discovery): an unknown token gets 401, a missing verb
// or namespace a 403 Status worded as the API server words it.

import { randomUUID } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";

const FLINK_API = "flink.apache.org/v1beta1";
const GROUP = "flink.apache.org";
const KINDS = { flinkdeployments: "FlinkDeployment", flinksessionjobs: "FlinkSessionJob" } as const;
type Plural = keyof typeof KINDS;

export interface StandInResource {
  apiVersion?: string;
  kind: "FlinkDeployment" | "FlinkSessionJob";
  metadata: { name: string; namespace: string; [key: string]: unknown };
  spec?: unknown;
  status?: unknown;
}

export interface StandInUser {
  name: string;
  groups?: string[];
}

/** An RBAC document as written in a manifest (only the fields RBAC evaluation reads). */
export interface RbacDocument {
  apiVersion?: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: { apiGroups?: string[]; resources?: string[]; verbs: string[]; resourceNames?: string[] }[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

export interface KubernetesApiStandInOptions {
  /** Bearer token -> who it authenticates. */
  tokens?: Record<string, StandInUser>;
  rbac?: readonly RbacDocument[];
  resources?: readonly StandInResource[];
  /** Serve HTTPS with this key and certificate; `ca` verifies client certificates. */
  tls?: { key: string; cert: string; ca?: string };
  host?: string;
  port?: number;
}

interface ServedAnswer {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  /** The user it authenticated, if any. */
  user?: string;
  body: unknown;
}

export interface KubernetesApiStandIn {
  url: string;
  /** Every request with the answer given, in order (a test may empty it). */
  answers: ServedAnswer[];
  /** Adds or replaces a resource (by kind, namespace and name). */
  put(resource: StandInResource): void;
  remove(kind: StandInResource["kind"], namespace: string, name: string): void;
  /** Forgets every list snapshot: outstanding continue tokens now answer 410 Gone. */
  expireContinueTokens(): void;
  close(): Promise<void>;
}

export function serviceAccountUser(namespace: string, name: string): StandInUser {
  return {
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"],
  };
}

export async function startKubernetesApiStandIn(
  options: KubernetesApiStandInOptions = {},
): Promise<KubernetesApiStandIn> {
  const store = new Map<
    string,
    StandInResource & { metadata: StandInResource["metadata"] & { resourceVersion: string } }
  >();
  let resourceVersion = 1000;
  const snapshots = new Map<string, { items: unknown[]; resourceVersion: string }>();
  const answers: ServedAnswer[] = [];
  const rbac = options.rbac ?? [];
  const tokens = options.tokens ?? {};

  const keyOf = (kind: string, namespace: string, name: string) => `${kind}\u0000${namespace}\u0000${name}`;
  const put = (resource: StandInResource) => {
    resourceVersion++;
    const key = keyOf(resource.kind, resource.metadata.namespace, resource.metadata.name);
    const previous = store.get(key);
    const stored = structuredClone({
      ...resource,
      apiVersion: FLINK_API,
      metadata: {
        ...resource.metadata,
        uid: (previous?.metadata.uid as string | undefined) ?? randomUUID(),
        resourceVersion: String(resourceVersion),
        generation: ((previous?.metadata.generation as number | undefined) ?? 0) + 1,
        creationTimestamp:
          (previous?.metadata.creationTimestamp as string | undefined) ?? "2026-01-05T08:00:00Z",
      },
    });
    store.set(key, stored);
  };
  for (const r of options.resources ?? []) put(r);

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const query = Object.fromEntries(url.searchParams);
    const send = (status: number, body: unknown, user?: string) => {
      answers.push({ method: req.method ?? "GET", path: url.pathname, query, status, user, body });
      res.writeHead(status, { "content-type": "application/json", "cache-control": "no-cache, private" });
      res.end(JSON.stringify(body));
    };

    const user = authenticate(req, tokens, options.tls?.ca !== undefined);
    if (!user) return send(401, status(401, "Unauthorized", "Unauthorized"));

    const route = routeOf(url.pathname);
    if (!route) {
      return send(
        404,
        status(404, "NotFound", "the server could not find the requested resource"),
        user.name,
      );
    }
    const verb = route.name !== undefined ? "get" : "list";
    if (req.method !== "GET") {
      return send(
        405,
        status(405, "MethodNotAllowed", `the server does not allow this method on the requested resource`),
        user.name,
      );
    }
    if (!allowed(rbac, user, verb, route.plural, route.namespace, route.name)) {
      const named = route.name === undefined ? "" : ` "${route.name}"`;
      const scope =
        route.namespace === undefined ? "at the cluster scope" : `in the namespace "${route.namespace}"`;
      return send(
        403,
        {
          ...status(
            403,
            "Forbidden",
            `${route.plural}.${GROUP}${named} is forbidden: User "${user.name}" cannot ${verb} resource "${route.plural}" in API group "${GROUP}" ${scope}`,
          ),
          details: { ...(route.name ? { name: route.name } : {}), group: GROUP, kind: route.plural },
        },
        user.name,
      );
    }
    const kind = KINDS[route.plural];
    if (route.name !== undefined && route.namespace !== undefined) {
      const found = store.get(keyOf(kind, route.namespace, route.name));
      if (!found) {
        return send(
          404,
          {
            ...status(404, "NotFound", `${route.plural}.${GROUP} "${route.name}" not found`),
            details: { name: route.name, group: GROUP, kind: route.plural },
          },
          user.name,
        );
      }
      return send(200, found, user.name);
    }

    // A list: the first page takes a snapshot; continue tokens page through that same snapshot.
    const limit = Number(url.searchParams.get("limit") ?? "0");
    const token = url.searchParams.get("continue");
    let snapshotId: string;
    let offset = 0;
    if (token) {
      let decoded: { s?: string; o?: number } = {};
      try {
        decoded = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
      } catch {
        return send(
          400,
          status(400, "BadRequest", "continue key is not valid: illegal base64 data"),
          user.name,
        );
      }
      if (!decoded.s || !snapshots.has(decoded.s)) {
        return send(
          410,
          status(
            410,
            "Expired",
            "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
          ),
          user.name,
        );
      }
      snapshotId = decoded.s;
      offset = decoded.o ?? 0;
    } else {
      snapshotId = randomUUID();
      const items = [...store.values()]
        .filter(
          (r) =>
            r.kind === kind && (route.namespace === undefined || r.metadata.namespace === route.namespace),
        )
        .sort((a, b) =>
          `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(
            `${b.metadata.namespace}/${b.metadata.name}`,
          ),
        )
        .map((r) => structuredClone(r));
      snapshots.set(snapshotId, { items, resourceVersion: String(resourceVersion) });
    }
    const snapshot = snapshots.get(snapshotId) as { items: unknown[]; resourceVersion: string };
    const end = limit > 0 ? Math.min(offset + limit, snapshot.items.length) : snapshot.items.length;
    const more = end < snapshot.items.length;
    if (!more) snapshots.delete(snapshotId);
    return send(
      200,
      {
        apiVersion: FLINK_API,
        kind: `${kind}List`,
        metadata: {
          resourceVersion: snapshot.resourceVersion,
          ...(more
            ? {
                continue: Buffer.from(JSON.stringify({ s: snapshotId, o: end })).toString("base64url"),
                remainingItemCount: snapshot.items.length - end,
              }
            : {}),
        },
        items: snapshot.items.slice(offset, end),
      },
      user.name,
    );
  };

  const server = options.tls
    ? createHttpsServer(
        {
          key: options.tls.key,
          cert: options.tls.cert,
          ca: options.tls.ca,
          requestCert: options.tls.ca !== undefined,
          rejectUnauthorized: false,
        },
        handler,
      )
    : createHttpServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? "127.0.0.1";
  return {
    url: `${options.tls ? "https" : "http"}://${host}:${port}`,
    answers,
    put,
    remove(kind, namespace, name) {
      resourceVersion++;
      store.delete(keyOf(kind, namespace, name));
    },
    expireContinueTokens() {
      snapshots.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function status(code: number, reason: string, message: string) {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}

/** A bearer token first (as the API server's authenticator chain), else a verified client certificate. */
function authenticate(
  req: IncomingMessage,
  tokens: Record<string, StandInUser>,
  certs: boolean,
): StandInUser | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer (\S+)$/.exec(header);
    return match ? tokens[match[1] as string] : undefined;
  }
  if (!certs) return undefined;
  const socket = req.socket as TLSSocket;
  if (!socket.authorized) return undefined;
  const peer = socket.getPeerCertificate();
  const subject = peer?.subject as unknown as Record<string, string | string[]> | undefined;
  const cn = subject?.CN;
  if (typeof cn !== "string") return undefined;
  const o = subject?.O;
  return { name: cn, groups: [...(Array.isArray(o) ? o : o ? [o] : []), "system:authenticated"] };
}

function routeOf(pathname: string): { plural: Plural; namespace?: string; name?: string } | undefined {
  const prefix = `/apis/${FLINK_API}/`;
  if (!pathname.startsWith(prefix)) return undefined;
  const parts = pathname.slice(prefix.length).split("/").map(decodeURIComponent);
  const isPlural = (p: string | undefined): p is Plural =>
    p === "flinkdeployments" || p === "flinksessionjobs";
  if (parts.length === 1 && isPlural(parts[0])) return { plural: parts[0] };
  if (parts[0] === "namespaces" && parts[1] && isPlural(parts[2]) && parts.length <= 4) {
    if (parts.length === 4 && !parts[3]) return undefined;
    return { plural: parts[2], namespace: parts[1], name: parts[3] };
  }
  return undefined;
}

/** RBAC as the API server evaluates it: a binding's subjects get its role's rules, in its namespace. */
export function allowed(
  rbac: readonly RbacDocument[],
  user: StandInUser,
  verb: string,
  resource: string,
  namespace: string | undefined,
  name?: string,
): boolean {
  const groups = new Set(user.groups ?? []);
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user.name);
  const matches = (subject: { kind: string; name: string; namespace?: string }) =>
    (subject.kind === "User" && subject.name === user.name) ||
    (subject.kind === "Group" && groups.has(subject.name)) ||
    (subject.kind === "ServiceAccount" &&
      sa !== null &&
      subject.namespace === sa[1] &&
      subject.name === sa[2]);
  const role = (kind: string, roleName: string, bindingNamespace?: string) =>
    rbac.find(
      (d) =>
        d.kind === kind &&
        d.metadata.name === roleName &&
        (kind === "ClusterRole" || d.metadata.namespace === bindingNamespace),
    );
  const ruleAllows = (rules: RbacDocument["rules"]) =>
    (rules ?? []).some(
      (r) =>
        (r.apiGroups ?? []).some((g) => g === GROUP || g === "*") &&
        (r.resources ?? []).some((x) => x === resource || x === "*") &&
        r.verbs.some((v) => v === verb || v === "*") &&
        (r.resourceNames === undefined ||
          r.resourceNames.length === 0 ||
          (name !== undefined && r.resourceNames.includes(name))),
    );
  return rbac.some((binding) => {
    if (!binding.roleRef || !(binding.subjects ?? []).some(matches)) return false;
    if (binding.kind === "ClusterRoleBinding") {
      return (
        binding.roleRef.kind === "ClusterRole" && ruleAllows(role("ClusterRole", binding.roleRef.name)?.rules)
      );
    }
    if (binding.kind !== "RoleBinding" || namespace === undefined || binding.metadata.namespace !== namespace)
      return false;
    return ruleAllows(role(binding.roleRef.kind, binding.roleRef.name, binding.metadata.namespace)?.rules);
  });
}
