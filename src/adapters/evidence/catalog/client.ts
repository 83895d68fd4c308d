// CatalogPort over the Iceberg REST catalog, using iceberg-js for the calls. We fetch /v1/config
// ourselves (iceberg-js does not) to learn the prefix, give iceberg-js a fetch built on our HTTP
// request layer, check every answer with zod, and turn its errors into coded ones.

import { IcebergError, IcebergRestCatalog } from "iceberg-js";
import type { AwsEnv } from "../../../config.js";
import type { TableEvidence, TableRef } from "../../../core/evidence/model.js";
import type { CatalogAuthSpec } from "../../../core/sources/model.js";
import { formatTableName } from "../../../core/table-name.js";
import { SOURCE_WORDS } from "../../../core/words/labels.js";
import { CodedError, ErrorCode } from "../../../errors.js";
import type { CatalogConfig, CatalogPort, PropertyCommit } from "../../../services/ports.js";
import { metadataLocationOfCall, withCallScope } from "../call-scope.js";
import { buildUrl, CATALOG_MAX_BYTES, type SourceClientOptions } from "../http.js";
import { statusError } from "../http-errors.js";
import { CatalogConfigSchema, TableMetadataSchema, toTableEvidence } from "../iceberg-schemas.js";
import { parseWithSchema } from "../parse.js";
import { scrubCodedError } from "../upstream-error.js";
import { createTokenProvider } from "./auth.js";
import { type CatalogSend, createCatalogFetch, createCatalogSend } from "./fetch.js";
import { allPages, getCatalogJson, namespacesPage, type PageTarget, tablesPage } from "./pages.js";

/**
 * The catalog's own auth travels in `auth`, never in plain headers. Its `url` is the REST
 * catalog's base, without /v1 (e.g. http://catalog:8181 or https://host/api/catalog).
 */
export interface CatalogClientOptions extends Omit<SourceClientOptions, "headers"> {
  warehouse?: string;
  auth?: CatalogAuthSpec;
  /** Clock for token expiry; wall time by default. */
  now?: () => number;
  /** The path prefix to use when the catalog's /v1/config gives none. */
  prefix?: string;
  /** AWS credential settings, for SigV4. */
  aws?: AwsEnv;
}

/** What iceberg-js's updateTable is given: a real CommitTableRequest, which it posts as is. */
interface CommitTableRequest {
  identifier: { namespace: string[]; name: string };
  requirements: { type: "assert-table-uuid"; uuid: string }[];
  updates: (
    | { action: "set-properties"; updates: Record<string, string> }
    | { action: "remove-properties"; removals: string[] }
  )[];
}

type UpdateTableRequest = Parameters<IcebergRestCatalog["updateTable"]>[1];

export function createCatalogClient(options: CatalogClientOptions): CatalogPort {
  const http = { ...options, source: "catalog" as const, maxBytes: options.maxBytes ?? CATALOG_MAX_BYTES };
  const tokens = createTokenProvider(
    options.auth ?? { kind: "none" },
    options.url,
    http,
    options.now,
    options.aws,
  );
  const send = createCatalogSend(http, tokens);

  let ready: ReturnType<typeof connect> | undefined;

  /** Config is read once; a failed read is forgotten so the next call tries again. */
  function init() {
    ready ??= connect(options, send).catch((error: unknown) => {
      ready = undefined;
      throw scrubCodedError(toCodedError(error, "read /v1/config"), tokens.secrets());
    });
    return ready;
  }

  /** Runs one catalog operation once config is read, its errors coded and scrubbed of secrets. */
  async function call<T>(
    operation: string,
    run: (ready: { catalog: IcebergRestCatalog; target: PageTarget }) => Promise<T>,
  ): Promise<T> {
    const { config, catalog } = await init();
    try {
      return await run({ catalog, target: { baseUrl: options.url, prefix: config.prefix, send } });
    } catch (error) {
      throw scrubCodedError(toCodedError(error, operation), tokens.secrets());
    }
  }

  const namespacesWhat = (parent: string[] | undefined) =>
    parent ? `list namespaces under ${parent.join(".")}` : "list namespaces";
  const tablesWhat = (namespace: string[]) => `list tables in ${namespace.join(".")}`;
  const namespacesListPage = (parent: string[] | undefined, pageToken?: string) =>
    call(namespacesWhat(parent), ({ target }) => namespacesPage(target, parent, pageToken));
  const tablesListPage = (namespace: string[], pageToken?: string) =>
    call(tablesWhat(namespace), ({ target }) => tablesPage(target, namespace, pageToken));

  return {
    url: displayUrl(options.url),

    async getConfig() {
      return (await init()).config;
    },

    // Listings page through next-page-token ourselves (see pages.ts).
    listNamespaces: (parent) =>
      allPages(namespacesWhat(parent), (token) => namespacesListPage(parent, token)),
    listTables: (namespace) => allPages(tablesWhat(namespace), (token) => tablesListPage(namespace, token)),

    listNamespacesPage: namespacesListPage,
    listTablesPage: tablesListPage,

    async loadTable(ref) {
      const operation = `load table ${formatTableName(ref)}`;
      return withCallScope(async () =>
        toEvidence(ref, await call(operation, ({ catalog }) => catalog.loadTable(ref)), operation),
      );
    },

    async commitProperties(ref, commit) {
      const name = formatTableName(ref);
      const request = commitRequest(ref, commit);
      const operation = `commit properties to ${name}`;
      try {
        return await withCallScope(async () => {
          const result = await call(operation, ({ catalog }) =>
            catalog.updateTable(ref, request as unknown as UpdateTableRequest),
          );
          return toEvidence(
            ref,
            { ...result.metadata, "metadata-location": result["metadata-location"] },
            operation,
          );
        });
      } catch (error) {
        throw commitError(error, name);
      }
    },
  };
}

/** The URL without any user:password part, for messages. */
function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return "(invalid catalog URL)";
  }
}

/** Reads /v1/config (the prefix and warehouse) and sets iceberg-js up on our fetch. */
async function connect(
  options: CatalogClientOptions,
  send: CatalogSend,
): Promise<{ config: CatalogConfig; catalog: IcebergRestCatalog }> {
  const url = buildUrl(options.url, "v1/config", { warehouse: options.warehouse });
  const raw = await getCatalogJson(send, url, CatalogConfigSchema);
  const config: CatalogConfig = {
    prefix: raw.overrides.prefix ?? raw.defaults.prefix ?? options.prefix,
    warehouse: raw.overrides.warehouse ?? options.warehouse ?? raw.defaults.warehouse,
    defaults: raw.defaults,
    overrides: raw.overrides,
  };
  const catalog = new IcebergRestCatalog({
    baseUrl: options.url,
    catalogName: config.prefix,
    // Our fetch adds the token itself so it can renew it after a 401.
    auth: { type: "none" },
    fetch: createCatalogFetch(send) as typeof fetch,
  });
  return { config, catalog };
}

function commitRequest(ref: TableRef, commit: PropertyCommit): CommitTableRequest {
  const updates: CommitTableRequest["updates"] = [];
  if (Object.keys(commit.set).length > 0)
    updates.push({ action: "set-properties", updates: { ...commit.set } });
  if (commit.remove.length > 0) updates.push({ action: "remove-properties", removals: [...commit.remove] });
  if (updates.length === 0) {
    throw new CodedError(
      ErrorCode.UsageInvalid,
      "A property change must set or remove at least one property",
      {
        hint: "Give at least one property to set or remove.",
      },
    );
  }
  return {
    identifier: { namespace: [...ref.namespace], name: ref.name },
    requirements: [{ type: "assert-table-uuid", uuid: commit.expectedUuid }],
    updates,
  };
}

function toEvidence(ref: TableRef, metadata: unknown, operation: string): TableEvidence {
  const ctx = { source: "catalog" as const, what: operation };
  const parsed = parseWithSchema(TableMetadataSchema, metadata, ctx);
  return toTableEvidence(ref, parsed, parsed["metadata-location"] ?? metadataLocationOfCall());
}

/** iceberg-js errors keep their status, Iceberg type and message; odd shapes become malformed. */
function toCodedError(error: unknown, operation: string): CodedError {
  if (error instanceof CodedError) return error;
  if (error instanceof IcebergError) {
    const said = { message: error.message, type: error.icebergType, code: error.icebergCode };
    const details = { operation, ...(error.isCommitStateUnknown ? { commitStateUnknown: true } : {}) };
    const hint = catalogHint(error.status, error.icebergType);
    return statusError("catalog", { status: error.status, what: operation, said, details }, hint, error);
  }
  // iceberg-js parses bodies and reads fields without checking them: a SyntaxError means a body
  // that is not JSON (cut short, an HTML page), a TypeError an unexpected shape.
  const message = error instanceof Error ? error.message : String(error);
  const notJson = error instanceof SyntaxError;
  return new CodedError(
    ErrorCode.SourceMalformed,
    `${SOURCE_WORDS.catalog} sent ${notJson ? "a body that is not valid JSON" : "an unexpected answer"} to ${operation}`,
    {
      hint: "Check that ICEBERG_CATALOG_URL points at an Iceberg REST catalog (without /v1).",
      details: { source: "catalog", operation, reason: message.slice(0, 200) },
      cause: error,
    },
  );
}

function catalogHint(status: number, type: string | undefined): string {
  if (status === 404)
    return `The catalog does not know it${type ? ` (${type})` : ""}; check the namespace and table name.`;
  if (status === 401 || status === 419) return "Check ICEBERG_CATALOG_TOKEN or ICEBERG_CATALOG_CREDENTIAL.";
  if (status === 403) return "The catalog credentials lack permission for this table.";
  if (status === 409) return "The table changed since it was read; reload it and try again.";
  if (status === 429)
    return "The catalog asks the bot to slow down; the bot waits as asked. If it keeps happening, lower sweep.ratePerSecond.catalog in BOT_CONFIG.";
  return "The catalog failed on its side; look at its logs and try again.";
}

/**
 * A commit that timed out, lost its connection, came back garbled or got a 500/502/504 may
 * still have been applied, so
 * it must not be retried blindly. A 409 means a requirement failed and nothing was written.
 */
function commitError(error: unknown, table: string): CodedError {
  const coded = error instanceof CodedError ? error : toCodedError(error, `commit properties to ${table}`);
  const status = coded.details?.status;
  const neverSent = ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN"].includes(String(coded.details?.errorCode));
  const unknownOutcome =
    coded.code === ErrorCode.SourceTimeout ||
    coded.code === ErrorCode.SourceMalformed ||
    (coded.code === ErrorCode.SourceUnreachable && !neverSent) ||
    (coded.code === ErrorCode.SourceHttpStatus && (status === 500 || status === 502 || status === 504)) ||
    coded.details?.commitStateUnknown === true;
  if (!unknownOutcome) return coded;
  return new CodedError(
    ErrorCode.ChangeOutcomeUnknown,
    `Not known whether the property change to ${table} was applied: ${coded.message}`,
    {
      hint: `Reload ${table} and compare its properties before trying again.`,
      details: { ...coded.details, table, causeCode: coded.code },
      cause: coded,
    },
  );
}
