// SQL a person copies into Spark: every identifier is validated and quoted, every literal escaped.
// Nothing from evidence or input is pasted as-is, so a hostile table or property name cannot
// turn a suggested statement into something else.

import { CodedError, ErrorCode } from "../errors.js";
import { CONNECT_KEYS, ENGINE_KEYS, FLINK_KEYS, SPARK_KEYS, TRINO_KEYS } from "./attribution/keys.js";
import type { TableRef } from "./evidence/model.js";

/** Spark's session catalog; used when no catalog name is configured. */
const DEFAULT_CATALOG = "spark_catalog";

const SAFE_IDENTIFIER = /^[A-Za-z0-9_-]+$/;
const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PROPERTY_KEY = /^[A-Za-z0-9._-]+$/;
// Words Spark's parser would read as keywords: quote them even though they look plain.
const RESERVED = new Set([
  "all",
  "and",
  "as",
  "by",
  "case",
  "create",
  "date",
  "delete",
  "drop",
  "from",
  "group",
  "insert",
  "interval",
  "join",
  "merge",
  "not",
  "null",
  "or",
  "order",
  "select",
  "set",
  "table",
  "timestamp",
  "to",
  "update",
  "user",
  "where",
  "with",
]);

function invalidStatementInput(what: string): CodedError {
  return new CodedError(ErrorCode.UsageInvalid, `Cannot render the SQL statement: ${what}.`, {
    hint: "Use names made of letters, digits, _ or - (for example db.events) and plain property values.",
  });
}

/** Backtick-quotes an identifier for Spark SQL when needed; rejects anything outside the safe alphabet. */
export function quoteIdentifier(identifier: string): string {
  if (!SAFE_IDENTIFIER.test(identifier))
    throw invalidStatementInput("an identifier contains characters that are not allowed");
  if (PLAIN_IDENTIFIER.test(identifier) && !RESERVED.has(identifier.toLowerCase())) return identifier;
  // The alphabet has no backtick, but escape anyway so the quoting stays correct if it ever widens.
  return `\`${identifier.replace(/`/g, "``")}\``;
}

function hasUnsafeLiteralCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f || code === 0x5c) return true;
  }
  return false;
}

/** A single-quoted SQL string literal with quotes doubled. Backslashes and control characters are refused. */
export function quoteLiteral(value: string): string {
  // Spark treats backslash as an escape inside literals, so doubling quotes alone would not be safe.
  if (hasUnsafeLiteralCharacter(value)) {
    throw invalidStatementInput("a value contains a backslash or a control character");
  }
  return `'${value.replace(/'/g, "''")}'`;
}

/** `catalog.db.events`, each level quoted when needed. */
export function qualifiedTable(table: TableRef, catalog?: string): string {
  const parts = catalog === undefined ? [] : [catalog];
  return [...parts, ...table.namespace, table.name].map(quoteIdentifier).join(".");
}

/** The table as the `table =>` argument of a Spark procedure expects it (no catalog). */
function procedureTableLiteral(table: TableRef): string {
  return quoteLiteral([...table.namespace, table.name].map(quoteIdentifier).join("."));
}

function quoteKey(key: string): string {
  if (!PROPERTY_KEY.test(key))
    throw invalidStatementInput("a property key contains characters that are not allowed");
  return quoteLiteral(key);
}

export interface StatementTarget {
  table: TableRef;
  catalog?: string;
}

/** ALTER TABLE ... SET TBLPROPERTIES with one property per line. */
export function renderSetProperties(
  target: StatementTarget,
  properties: ReadonlyArray<[string, string]>,
): string {
  if (properties.length === 0) throw invalidStatementInput("no properties to set");
  const lines = properties.map(([key, value]) => `  ${quoteKey(key)} = ${quoteLiteral(value)}`);
  return `ALTER TABLE ${qualifiedTable(target.table, target.catalog)} SET TBLPROPERTIES (\n${lines.join(",\n")}\n);`;
}

/** ALTER TABLE ... UNSET TBLPROPERTIES, one key per line; the table falls back to its defaults. */
export function renderUnsetProperties(target: StatementTarget, keys: readonly string[]): string {
  if (keys.length === 0) throw invalidStatementInput("no properties to unset");
  const lines = keys.map((key) => `  ${quoteKey(key)}`);
  return `ALTER TABLE ${qualifiedTable(target.table, target.catalog)} UNSET TBLPROPERTIES (\n${lines.join(",\n")}\n);`;
}

/** A bound that leaves the newest partitions alone; only fixed expression shapes, never free text. */
type PartitionBound = { kind: "days-ago"; days: number } | { kind: "hours-ago"; hours: number };

export interface RewriteFilter {
  /** Source column of the time partition, e.g. event_date or event_ts. */
  column: string;
  bound: PartitionBound;
}

function renderBound(bound: PartitionBound): string {
  const amount = bound.kind === "days-ago" ? bound.days : bound.hours;
  if (!Number.isInteger(amount) || amount < 0 || amount > 10_000)
    throw invalidStatementInput("the partition bound is out of range");
  if (bound.kind === "days-ago")
    return amount === 0 ? "current_date()" : `current_date() - INTERVAL ${amount} DAYS`;
  return `current_timestamp() - INTERVAL ${amount} HOURS`;
}

/** The `where` text for rewrite_data_files, e.g. `event_date < current_date()`. */
function renderRewriteWhere(filter: RewriteFilter): string {
  return `${quoteIdentifier(filter.column)} < ${renderBound(filter.bound)}`;
}

/** CALL <catalog>.system.rewrite_data_files with partial progress, sparing hot partitions via `where`. */
export function renderRewriteDataFiles(options: StatementTarget & { where?: RewriteFilter }): string {
  const catalog = quoteIdentifier(options.catalog ?? DEFAULT_CATALOG);
  const args = [`  table => ${procedureTableLiteral(options.table)}`];
  if (options.where) args.push(`  where => ${quoteLiteral(renderRewriteWhere(options.where))}`);
  args.push("  options => map('partial-progress.enabled', 'true', 'partial-progress.max-commits', '10')");
  return `CALL ${catalog}.system.rewrite_data_files(\n${args.join(",\n")}\n);`;
}

/**
 * Removes what one snapshot added: the rows of the data files it added (status 1 in the entries
 * table). Every row of those files matches, so Iceberg drops the files whole; the duplicate of an
 * unknown commit goes, the first copy stays.
 */
export function renderDeleteSnapshotFiles(target: StatementTarget, snapshotId: string): string {
  if (!/^-?\d{1,20}$/.test(snapshotId)) throw invalidStatementInput("a snapshot id is not a number");
  const table = qualifiedTable(target.table, target.catalog ?? DEFAULT_CATALOG);
  return [
    `DELETE FROM ${table}`,
    "WHERE _file IN (",
    `  SELECT data_file.file_path FROM ${table}.entries`,
    `  WHERE snapshot_id = ${snapshotId} AND status = 1`,
    ");",
  ].join("\n");
}

/** The rows of a few snapshots, to compare what each committed (a lost commit's data re-committed once). */
export function renderSnapshotsById(target: StatementTarget, snapshotIds: readonly string[]): string {
  if (snapshotIds.length === 0) throw invalidStatementInput("no snapshots to compare");
  if (!snapshotIds.every((id) => /^-?\d{1,20}$/.test(id)))
    throw invalidStatementInput("a snapshot id is not a number");
  const table = qualifiedTable(target.table, target.catalog ?? DEFAULT_CATALOG);
  return `SELECT snapshot_id, committed_at, summary FROM ${table}.snapshots WHERE snapshot_id IN (${snapshotIds.join(", ")});`;
}

/** `TIMESTAMP 'YYYY-MM-DD HH:MM:SS UTC'`: the zone is explicit so the session time zone cannot shift it. */
function renderTimestamp(ms: number): string {
  if (!Number.isFinite(ms)) throw invalidStatementInput("a time is not a valid number");
  const iso = new Date(ms).toISOString();
  return `TIMESTAMP ${quoteLiteral(`${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`)}`;
}

export interface ExpireSnapshotsOptions extends StatementTarget {
  olderThanMs?: number;
  retainLast: number;
}

export function renderExpireSnapshots(options: ExpireSnapshotsOptions): string {
  if (!Number.isInteger(options.retainLast) || options.retainLast < 1)
    throw invalidStatementInput("retain_last must be a positive whole number");
  const args = [`  table => ${procedureTableLiteral(options.table)}`];
  if (options.olderThanMs !== undefined) args.push(`  older_than => ${renderTimestamp(options.olderThanMs)}`);
  args.push(`  retain_last => ${options.retainLast}`);
  return `CALL ${quoteIdentifier(options.catalog ?? DEFAULT_CATALOG)}.system.expire_snapshots(\n${args.join(",\n")}\n);`;
}

export function renderRewritePositionDeleteFiles(target: StatementTarget): string {
  return `CALL ${quoteIdentifier(target.catalog ?? DEFAULT_CATALOG)}.system.rewrite_position_delete_files(table => ${procedureTableLiteral(target.table)});`;
}

export interface SnapshotsQueryOptions extends StatementTarget {
  fromMs: number;
  toMs?: number;
}

/** The snapshots metadata table for a window: who committed what, oldest first. */
export function renderSnapshotsQuery(options: SnapshotsQueryOptions): string {
  const from = qualifiedTable(options.table, options.catalog ?? DEFAULT_CATALOG);
  const conditions = [`committed_at >= ${renderTimestamp(options.fromMs)}`];
  if (options.toMs !== undefined) conditions.push(`committed_at <= ${renderTimestamp(options.toMs)}`);
  return [
    "SELECT committed_at, snapshot_id, parent_id, operation,",
    // The keys that name a writer (core/attribution/keys.ts), both Connect sink generations included.
    `       summary['${FLINK_KEYS.jobId}'] AS flink_job,`,
    `       summary['${SPARK_KEYS.appId}'] AS spark_app,`,
    `       summary['${CONNECT_KEYS.taskId}'] AS connect_task,`,
    `       coalesce(summary['${CONNECT_KEYS.commitId}'], summary['${CONNECT_KEYS.commitIdTabularEarly}']) AS connect_commit,`,
    `       summary['${TRINO_KEYS.queryId}'] AS trino_query,`,
    `       summary['${ENGINE_KEYS.name}'] AS engine`,
    `FROM ${from}.snapshots`,
    `WHERE ${conditions.join(" AND ")}`,
    "ORDER BY committed_at;",
  ].join("\n");
}

export function renderDropBranch(target: StatementTarget, branch: string): string {
  return `ALTER TABLE ${qualifiedTable(target.table, target.catalog)} DROP BRANCH ${quoteIdentifier(branch)};`;
}
