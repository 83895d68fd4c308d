// A small Kubernetes API client: get and list (with `limit`/`continue` pagination) of the Flink
// Kubernetes Operator's custom resources, nothing else. Requests go through the evidence sources'
// request routine (deadline, size cap, coded transport errors) with the connection's CA and client
// certificate; a 403 names the verb, resource and namespace the RBAC lacks and the manifest that
// grants it.

import { z } from "zod";
import { ALL_NAMESPACES } from "../../../core/kubernetes-settings.js";
import { CodedError, ErrorCode } from "../../../errors.js";
import { scrubAllForms } from "../../../util/secret-forms.js";
import { buildUrl, type HttpResponse, type HttpSourceOptions, parseBody, sendRaw, tlsPool } from "../http.js";
import { statusError } from "../http-errors.js";
import type { Agent } from "../undici-lean.js";
import { describeUpstreamError } from "../upstream-error.js";
import type { KubernetesConnection } from "./credentials.js";

const FLINK_GROUP = "flink.apache.org";
const FLINK_VERSION = "v1beta1";
export type FlinkResourcePlural = "flinkdeployments" | "flinksessionjobs";

export const RBAC_NAMESPACE_MANIFEST = "deploy/kubernetes/flink-discovery/rbac-namespace.yaml";
export const RBAC_CLUSTER_MANIFEST = "deploy/kubernetes/flink-discovery/rbac-cluster.yaml";

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_BYTES = 32 * 1024 * 1024;
/** Bounds one listing over all its pages: a server ignoring `limit` must not fill the heap. */
export const MAX_LIST_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_ITEMS = 5000;
/** Bounds a server whose continue tokens never end. */
const MAX_PAGES = 1000;

const ListSchema = z.object({
  items: z.array(z.unknown()),
  metadata: z.object({ continue: z.string().optional() }).optional(),
});

export interface KubernetesClientOptions {
  timeoutMs?: number;
  /** Items per list page (the API's `limit`). */
  pageSize?: number;
  /** Most items one listing keeps over all its pages (kubernetes.maxItems). */
  maxItems?: number;
}

export interface ListResult<T = unknown> {
  items: T[];
  /** Requests the listing took (pages, plus a restart after an expired continue token). */
  requests: number;
}

interface Call {
  verb: "get" | "list";
  resource: FlinkResourcePlural;
  namespace: string;
  name?: string;
}

export class KubernetesClient {
  private readonly http: HttpSourceOptions & { dispatcher: Agent };
  private readonly pageSize: number;
  private readonly maxItems: number;

  constructor(
    private readonly connection: KubernetesConnection,
    options: KubernetesClientOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 100;
    this.maxItems = options.maxItems ?? DEFAULT_MAX_ITEMS;
    this.http = {
      source: "kubernetes",
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBytes: MAX_BYTES,
      dispatcher: tlsPool(connection),
    };
  }

  /** Every item of a resource in a namespace (or every namespace), page by page. */
  async list(resource: FlinkResourcePlural, namespace: string): Promise<ListResult> {
    const call: Call = { verb: "list", resource, namespace };
    let requests = 0;
    let restarted = false;
    let items: unknown[] = [];
    let bytes = 0;
    let token: string | undefined;
    for (let page = 0; ; page++) {
      if (page >= MAX_PAGES) {
        throw new CodedError(
          ErrorCode.SourceMalformed,
          `Kubernetes API kept answering continue tokens for ${describe(call)} after ${MAX_PAGES} pages; listing stopped`,
          {
            hint: "Check that kubernetes.pageSize is sensible and the API server is healthy.",
            details: detailsOf(call),
          },
        );
      }
      requests++;
      const answer = await this.call(call, { limit: String(this.pageSize), continue: token });
      if (answer.status === 410 && token && !restarted) {
        // The continue token expired (etcd compacted): start a fresh, consistent list once.
        restarted = true;
        items = [];
        bytes = 0;
        token = undefined;
        page = -1;
        continue;
      }
      if (answer.status !== 200) throw this.statusError(call, answer);
      const list = parseBody(ListSchema, answer.body, "kubernetes", describe(call));
      bytes += Buffer.byteLength(answer.body);
      if (items.length + list.items.length > this.maxItems || bytes > MAX_LIST_BYTES) {
        const what =
          bytes > MAX_LIST_BYTES
            ? `more than ${MAX_LIST_BYTES} bytes`
            : `more than ${this.maxItems} items (kubernetes.maxItems)`;
        throw new CodedError(
          ErrorCode.SourceTooLarge,
          `Kubernetes API listed ${what} for ${describe(call)} after ${requests} pages; listing stopped`,
          {
            hint: "Raise kubernetes.maxItems if the cluster really holds that many, or check that the API server honours limit.",
            details: { ...detailsOf(call), pages: requests, items: items.length + list.items.length, bytes },
          },
        );
      }
      items.push(...list.items);
      const next = list.metadata?.continue;
      if (!next) return { items, requests };
      token = next;
    }
  }

  /** One resource by name; undefined when it does not exist. */
  async get(resource: FlinkResourcePlural, namespace: string, name: string): Promise<unknown | undefined> {
    if (namespace === ALL_NAMESPACES) throw new TypeError("get needs a namespace: resources are namespaced");
    const call: Call = { verb: "get", resource, namespace, name };
    const answer = await this.call(call, {});
    if (answer.status === 404) return undefined;
    if (answer.status !== 200) throw this.statusError(call, answer);
    return parseBody(z.unknown(), answer.body, "kubernetes", describe(call));
  }

  async close(): Promise<void> {
    await this.http.dispatcher.close();
  }

  private async call(call: Call, query: Record<string, string | undefined>): Promise<HttpResponse> {
    const scope =
      call.namespace === ALL_NAMESPACES ? "" : `/namespaces/${encodeURIComponent(call.namespace)}`;
    const name = call.name === undefined ? "" : `/${encodeURIComponent(call.name)}`;
    const path = `apis/${FLINK_GROUP}/${FLINK_VERSION}${scope}/${call.resource}${name}`;
    const url = buildUrl(this.connection.server.href, path, query);
    // Read for every request: a projected service-account token rotates.
    const token = this.connection.token?.();
    const headers: Record<string, string> = { accept: "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    const answer = await sendRaw(this.http, { url, headers, what: describe(call) });
    // The API server's words may echo the token or the client key: nothing reads them before they go.
    const secrets = [token ?? "", this.connection.key ?? ""].filter((s) => s.length >= 4);
    return { ...answer, body: scrubAllForms(answer.body, secrets) };
  }

  private statusError(call: Call, { status, body }: HttpResponse): CodedError {
    const said = describeUpstreamError(body).message;
    const tail = said ? `: ${said}` : "";
    const details = { ...detailsOf(call), status };
    const who = this.connection.identity;
    if (status === 403) {
      const scope =
        call.namespace === ALL_NAMESPACES ? "across all namespaces" : `in namespace "${call.namespace}"`;
      const fix =
        call.namespace === ALL_NAMESPACES
          ? `Apply ${RBAC_CLUSTER_MANIFEST} (a ClusterRole with get and list on flinkdeployments and flinksessionjobs, bound to the bot's service account), or list namespaces by name.`
          : `Apply ${RBAC_NAMESPACE_MANIFEST} in namespace "${call.namespace}" (a Role with get and list on flinkdeployments and flinksessionjobs, bound to the bot's service account).`;
      return new CodedError(
        ErrorCode.KubernetesForbidden,
        `Kubernetes API denied ${who} "${call.verb}" on ${call.resource}.${FLINK_GROUP} ${scope} (HTTP 403)${tail}`,
        { hint: fix, details },
      );
    }
    if (status === 401) {
      return new CodedError(
        ErrorCode.AuthFailed,
        `Kubernetes API refused the credentials of ${who} (HTTP 401 to ${describe(call)})${tail}`,
        {
          hint: "The token is unknown or expired, or the client certificate is not trusted: check the service account token mount or the kubeconfig user.",
          details,
        },
      );
    }
    if (status === 404 && call.verb === "list") {
      return new CodedError(
        ErrorCode.SourceHttpStatus,
        `Kubernetes API does not serve ${call.resource}.${FLINK_GROUP}/${FLINK_VERSION} (HTTP 404)${tail}`,
        {
          hint: "Install the Flink Kubernetes Operator's CRDs in this cluster, or point the bot at the cluster that runs it.",
          details,
        },
      );
    }
    return statusError(
      "kubernetes",
      { status, what: describe(call), said: { message: said }, details: detailsOf(call) },
      status >= 500
        ? "The API server failed on its side; it is tried again at the next refresh."
        : "Check the API server's logs for this request.",
    );
  }
}

function describe(call: Call): string {
  const where = call.namespace === ALL_NAMESPACES ? "all namespaces" : `namespace ${call.namespace}`;
  return `${call.verb} ${call.resource}${call.name ? ` ${call.name}` : ""} in ${where}`;
}

function detailsOf(call: Call): Record<string, unknown> {
  return {
    source: "kubernetes",
    verb: call.verb,
    resource: call.resource,
    group: FLINK_GROUP,
    namespace: call.namespace,
    ...(call.name ? { name: call.name } : {}),
  };
}
