// Contract-test helper: validates requests and responses against an upstream OpenAPI file.
// Built synchronously (quick mode dereferences in-process) so callers may use it with or
// without await.

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Document, OpenAPIBackend, type Operation } from "openapi-backend";
import { parse } from "yaml";

/** The repository root (two levels above this file). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** Verbatim upstream specs and payloads, kept in the repository (see its README for sources). */
export const REAL_DIR = path.join(REPO_ROOT, "test/fixtures/upstream");
export const ICEBERG_SPEC = path.join(REAL_DIR, "iceberg/rest-catalog-open-api.yaml");
export const FLINK_SPEC = path.join(REAL_DIR, "flink/rest_v1_dispatcher.yml");

export interface SpecValidator {
  /** Errors for a response body at that status; empty = valid. Unknown routes are an error. */
  validateResponse(method: string, path: string, status: number, body: unknown): string[];
  /** Errors for a request (path, query and body); empty = valid. */
  validateRequest(
    method: string,
    path: string,
    body?: unknown,
    query?: Record<string, string | string[]>,
  ): string[];
}

interface AjvLikeError {
  instancePath?: string;
  message?: string;
  params?: unknown;
}

function describeErrors(errors: readonly AjvLikeError[] | null | undefined): string[] {
  return (errors ?? []).map(
    (e) => `${e.instancePath || "(root)"}: ${e.message ?? "invalid"} ${JSON.stringify(e.params ?? {})}`,
  );
}

function splitPath(path: string): { pathname: string; query: Record<string, string | string[]> } {
  const url = new URL(path, "http://spec.invalid");
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return { pathname: url.pathname, query };
}

export function createSpecValidator(specPath: string): SpecValidator {
  const document = parse(readFileSync(specPath, "utf8")) as Document;
  const api = new OpenAPIBackend({
    definition: document,
    quick: true,
    strict: false,
    ajvOpts: { strict: false, logger: false },
  });
  // In quick mode with an object definition, init() builds router and validator before its
  // first await; the returned promise only matters for handler registration, which we skip.
  void api.init();

  const matchExact = (method: string, path: string): Operation | undefined =>
    api.router.matchOperation({ method: method.toLowerCase(), path, headers: {} });
  // Iceberg clients drop the {prefix} segment when the catalog sets none; the spec always has it.
  const withPrefix = (path: string): string =>
    path.startsWith("/v1/namespaces") ? path.replace(/^\/v1\//, "/v1/-/") : path;
  const match = (method: string, path: string): Operation | undefined =>
    matchExact(method, path) ?? matchExact(method, withPrefix(path));

  return {
    validateResponse(method, path, status, body) {
      const { pathname } = splitPath(path);
      const op = match(method, pathname);
      if (!op) return [`no operation in the spec for ${method.toUpperCase()} ${pathname}`];
      const declared = Object.keys(op.responses ?? {});
      if (!declared.includes(String(status)) && !declared.includes("default")) {
        return [`status ${status} is not declared for ${op.operationId ?? pathname}`];
      }
      const result = api.validator.validateResponse(body, op, status);
      return result.valid ? [] : describeErrors(result.errors as AjvLikeError[]);
    },
    validateRequest(method, path, body, query) {
      const split = splitPath(path);
      const op = match(method, split.pathname);
      if (!op) return [`no operation in the spec for ${method.toUpperCase()} ${split.pathname}`];
      const result = api.validator.validateRequest(
        {
          method: method.toLowerCase(),
          path: matchExact(method, split.pathname) ? split.pathname : withPrefix(split.pathname),
          query: { ...split.query, ...(query ?? {}) },
          headers: { "content-type": "application/json" },
          body: body as Record<string, unknown>,
        },
        op,
      );
      return result.valid ? [] : describeErrors(result.errors as AjvLikeError[]);
    },
  };
}
