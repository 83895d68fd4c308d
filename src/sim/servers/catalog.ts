// Iceberg REST catalog routes over the simulated tables: config, OAuth tokens, namespaces,
// tables, load and commit (property changes with optimistic-concurrency requirements).

import type { SimClock } from "../clock.js";
import type { SimTable } from "../model/table.js";
import type { World } from "../model/world.js";
import { json, type SimRequest, type SimResponse } from "./http.js";

export interface CatalogAuthOptions {
  token?: string;
  oauthClients?: Record<string, string>;
}

export interface CatalogRouterOptions {
  world: World;
  clock: SimClock;
  auth?: CatalogAuthOptions;
  tokenTtlSeconds: number;
}

const NAMESPACE_SEPARATOR = "\u001f";

function catalogError(status: number, type: string, message: string): SimResponse {
  return json(status, { error: { message, type, code: status } });
}

/** The default ErrorModel body for an injected status fault. */
export function catalogErrorBody(status: number): string {
  const types: Record<number, [string, string]> = {
    400: ["BadRequestException", "Malformed request"],
    401: ["NotAuthorizedException", "Not authorized to make this request"],
    403: ["ForbiddenException", "Not authorized to make this request"],
    404: ["NoSuchTableException", "The given table does not exist"],
    409: ["CommitFailedException", "Commit failed: the table was changed by another writer"],
    419: ["AuthenticationTimeoutException", "Credentials have timed out"],
    500: ["InternalServerError", "Internal Server Error"],
    502: ["InternalServerError", "Invalid response from the upstream server"],
    503: ["SlowDownException", "Slow down"],
    504: ["CommitStateUnknownException", "Gateway timed out during commit"],
  };
  const [type, message] = types[status] ?? ["ServiceFailureException", `Service failed with HTTP ${status}`];
  return JSON.stringify({ error: { message, type, code: status } });
}

interface Requirement {
  type?: string;
  uuid?: string;
  ref?: string;
  "snapshot-id"?: string | null;
  "current-schema-id"?: number;
}

interface TableUpdate {
  action?: string;
  updates?: Record<string, string>;
  removals?: string[];
}

/** Keeps 64-bit snapshot ids exact by quoting them before JSON.parse. */
function parseCommitBody(text: string): { requirements?: Requirement[]; updates?: TableUpdate[] } {
  const safe = text.replace(/("snapshot-id"\s*:\s*)(-?\d+)/g, '$1"$2"');
  return JSON.parse(safe) as { requirements?: Requirement[]; updates?: TableUpdate[] };
}

export function createCatalogRouter(opts: CatalogRouterOptions): (req: SimRequest) => SimResponse {
  const { world, clock } = opts;
  const scenarioCatalog = world.scenario.catalog;
  const issued = new Map<string, number>(); // token -> expiry ms
  let tokenCounter = 0;

  interface ListingIndex {
    tables: ReadonlyMap<string, SimTable>;
    size: number;
    namespaces: string[][];
    /** Sorted table identifiers by namespace key. */
    byNamespace: Map<string, { namespace: string[]; name: string }[]>;
  }
  // Listings come a page at a time; with 100,000 tables, working each page out from every table
  // made this stand-in, not the client, the slowest part of a sweep. Rebuilt when the tables change.
  let index: ListingIndex | undefined;
  function listingIndex(): ListingIndex {
    const tables = world.tables;
    if (index && index.tables === tables && index.size === tables.size) return index;
    const seen = new Map<string, string[]>();
    const add = (levels: string[]) => {
      for (let i = 1; i <= levels.length; i++) {
        const ns = levels.slice(0, i);
        seen.set(ns.join(NAMESPACE_SEPARATOR), ns);
      }
    };
    const byNamespace = new Map<string, { namespace: string[]; name: string }[]>();
    for (const t of tables.values()) {
      add(t.namespace);
      const key = t.namespace.join(NAMESPACE_SEPARATOR);
      const list = byNamespace.get(key) ?? [];
      list.push({ namespace: t.namespace, name: t.name });
      byNamespace.set(key, list);
    }
    for (const list of byNamespace.values())
      list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const n of scenarioCatalog.namespaces) add(n.split("."));
    index = { tables, size: tables.size, namespaces: [...seen.values()], byNamespace };
    return index;
  }

  function namespaces(): string[][] {
    return listingIndex().namespaces;
  }

  function authorised(req: SimRequest): boolean {
    const auth = opts.auth;
    if (!auth || (auth.token === undefined && auth.oauthClients === undefined)) return true;
    const header = req.headers.authorization ?? "";
    const m = /^Bearer\s+(.+)$/i.exec(header);
    if (!m) return false;
    const token = m[1] as string;
    if (auth.token !== undefined && token === auth.token) return true;
    const expiry = issued.get(token);
    return expiry !== undefined && expiry > clock.now();
  }

  function oauthToken(req: SimRequest): SimResponse {
    const form = new URLSearchParams(req.body);
    let clientId = form.get("client_id");
    let secret = form.get("client_secret");
    const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? "");
    if (basic) {
      const decoded = Buffer.from(basic[1] as string, "base64").toString("utf8");
      const i = decoded.indexOf(":");
      clientId = decodeURIComponent(decoded.slice(0, i));
      secret = decodeURIComponent(decoded.slice(i + 1));
    }
    const grant = form.get("grant_type");
    if (grant !== "client_credentials") {
      return json(400, {
        error: "unsupported_grant_type",
        error_description: `grant_type must be client_credentials, got ${grant ?? "nothing"}`,
      });
    }
    const clients = opts.auth?.oauthClients ?? {};
    if (!clientId || secret === null || clients[clientId] !== secret) {
      return json(401, {
        error: "invalid_client",
        error_description: "Credentials for this client are invalid",
      });
    }
    const token = `sim-token-${++tokenCounter}-${clientId}`;
    issued.set(token, clock.now() + opts.tokenTtlSeconds * 1000);
    return json(200, {
      access_token: token,
      token_type: "bearer",
      expires_in: opts.tokenTtlSeconds,
      issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
    });
  }

  function config(): SimResponse {
    const overrides: Record<string, string> = {};
    if (scenarioCatalog.prefix !== undefined) overrides.prefix = scenarioCatalog.prefix;
    return json(200, {
      defaults: { clients: "4", warehouse: scenarioCatalog.warehouse },
      overrides,
      endpoints: [
        "GET /v1/{prefix}/namespaces",
        "GET /v1/{prefix}/namespaces/{namespace}",
        "HEAD /v1/{prefix}/namespaces/{namespace}",
        "GET /v1/{prefix}/namespaces/{namespace}/tables",
        "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
      ],
    });
  }

  function findTable(ns: string[], name: string): SimTable | undefined {
    return world.table([...ns, name].join("."));
  }

  function noTable(ns: string[], name: string): SimResponse {
    return catalogError(404, "NoSuchTableException", `Table does not exist: ${[...ns, name].join(".")}`);
  }

  function namespaceExists(ns: string[]): boolean {
    const key = ns.join(NAMESPACE_SEPARATOR);
    return listingIndex().namespaces.some((n) => n.join(NAMESPACE_SEPARATOR) === key);
  }

  function noNamespace(ns: string[]): SimResponse {
    return catalogError(404, "NoSuchNamespaceException", `Namespace does not exist: ${ns.join(".")}`);
  }

  function commit(table: SimTable, body: string): SimResponse {
    let parsed: ReturnType<typeof parseCommitBody>;
    try {
      parsed = parseCommitBody(body);
    } catch {
      return catalogError(400, "BadRequestException", "Malformed request: the body is not valid JSON");
    }
    for (const r of parsed.requirements ?? []) {
      const failure = checkRequirement(table, r);
      if (failure) return catalogError(409, "CommitFailedException", failure);
    }
    const set: Record<string, string> = {};
    const remove: string[] = [];
    for (const u of parsed.updates ?? []) {
      if (u.action === "set-properties" && u.updates) Object.assign(set, u.updates);
      else if (u.action === "remove-properties" && u.removals) remove.push(...u.removals);
      else {
        return catalogError(
          400,
          "BadRequestException",
          `Unsupported table update "${u.action ?? "?"}": this catalog accepts set-properties and remove-properties`,
        );
      }
    }
    table.updateProperties(set, remove, clock.now());
    world.sync(clock.now());
    const load = table.loadResultJson();
    // CommitTableResponse is the LoadTableResult without the config section.
    return { status: 200, body: load.replace(/,"config":\{\}\}$/, "}"), contentType: "application/json" };
  }

  /**
   * The REST spec's pagination: without pageToken everything comes at once; with one (empty to
   * start) a page of at most pageSize items and a next-page-token, null on the last page.
   */
  function paged<T>(req: SimRequest, items: T[], key: string): SimResponse {
    if (!req.query.has("pageToken")) return json(200, { [key]: items });
    const token = req.query.get("pageToken") ?? "";
    const decoded = Buffer.from(token, "base64url").toString("utf8");
    const start = token === "" ? 0 : /^o:\d+$/.test(decoded) ? Number(decoded.slice(2)) : Number.NaN;
    if (!Number.isInteger(start)) {
      return catalogError(400, "BadRequestException", "Malformed request: invalid pageToken");
    }
    const asked = Number(req.query.get("pageSize") ?? Number.NaN);
    const size = Math.min(scenarioCatalog.pageSize, asked > 0 ? asked : Number.POSITIVE_INFINITY);
    const end = start + size;
    const next = end < items.length ? Buffer.from(`o:${end}`, "utf8").toString("base64url") : null;
    return json(200, { [key]: items.slice(start, end), "next-page-token": next });
  }

  return (req) => {
    if (req.method === "POST" && req.pathname === "/v1/oauth/tokens") return oauthToken(req);
    if (!authorised(req)) {
      return catalogError(401, "NotAuthorizedException", "Not authorized: send a valid bearer token");
    }
    if (req.method === "GET" && req.pathname === "/v1/config") return config();

    const segments = req.pathname.split("/").slice(1).map(decodeURIComponent);
    if (segments[0] !== "v1") return catalogError(404, "NotFoundException", `No route for ${req.pathname}`);
    let rest = segments.slice(1);
    if (scenarioCatalog.prefix !== undefined) {
      if (rest[0] !== scenarioCatalog.prefix) {
        return catalogError(404, "NotFoundException", `No route for ${req.pathname} (unknown prefix)`);
      }
      rest = rest.slice(1);
    }
    if (rest[0] !== "namespaces")
      return catalogError(404, "NotFoundException", `No route for ${req.pathname}`);

    if (rest.length === 1 && req.method === "GET") {
      const parentRaw = req.query.get("parent");
      const parent = parentRaw ? parentRaw.split(NAMESPACE_SEPARATOR) : [];
      if (parent.length && !namespaceExists(parent)) return noNamespace(parent);
      const children = namespaces().filter(
        (n) => n.length === parent.length + 1 && parent.every((p, i) => n[i] === p),
      );
      return paged(req, children, "namespaces");
    }
    const ns = (rest[1] ?? "").split(NAMESPACE_SEPARATOR);
    if (rest.length === 2) {
      if (!namespaceExists(ns)) return noNamespace(ns);
      if (req.method === "HEAD") return { status: 204 };
      if (req.method === "GET") return json(200, { namespace: ns, properties: {} });
    }
    if (rest.length === 3 && rest[2] === "tables" && req.method === "GET") {
      if (!namespaceExists(ns)) return noNamespace(ns);
      const identifiers = listingIndex().byNamespace.get(ns.join(NAMESPACE_SEPARATOR)) ?? [];
      return paged(req, identifiers, "identifiers");
    }
    if (rest.length === 4 && rest[2] === "tables") {
      const name = rest[3] as string;
      const table = findTable(ns, name);
      if (!table) return namespaceExists(ns) ? noTable(ns, name) : noNamespace(ns);
      if (req.method === "HEAD") return { status: 204 };
      if (req.method === "GET") {
        return {
          status: 200,
          body: table.loadResultJson({ refsOnly: req.query.get("snapshots") === "refs" }),
          contentType: "application/json",
          headers: { etag: `"${table.metadataVersions.length}"` },
        };
      }
      if (req.method === "POST") return commit(table, req.body);
    }
    return catalogError(404, "NotFoundException", `No route for ${req.method} ${req.pathname}`);
  };
}

function checkRequirement(table: SimTable, r: Requirement): string | undefined {
  switch (r.type) {
    case "assert-create":
      return "Requirement failed: table already exists";
    case "assert-table-uuid":
      return r.uuid === table.uuid
        ? undefined
        : `Requirement failed: UUID does not match: expected ${table.uuid} != ${r.uuid}`;
    case "assert-ref-snapshot-id": {
      const ref = r.ref ?? "main";
      const isTag = table.branchSpecs.some((b) => b.name === ref && b.type === "tag");
      const current = table.currentSnapshotId(ref);
      const expected = r["snapshot-id"] ?? null;
      if (expected === null) {
        return current === null
          ? undefined
          : `Requirement failed: ${isTag ? "tag" : "branch"} ${ref} was created concurrently`;
      }
      if (current === null)
        return `Requirement failed: branch or tag ${ref} is missing, expected ${expected}`;
      return current.toString() === String(expected)
        ? undefined
        : `Requirement failed: ${isTag ? "tag" : "branch"} ${ref} has changed: expected id ${expected} != ${current}`;
    }
    default:
      return undefined;
  }
}
