// Table names arrive from Slack commands, alert labels and config. They end up in REST paths,
// SQL a person copies and metric ids, so anything outside a small safe alphabet is refused here.

import { CodedError, ErrorCode } from "../errors.js";
import type { TableRef } from "./evidence/model.js";

const MAX_LENGTH = 255;
const LEVEL_PATTERN = /^[A-Za-z0-9_-]+$/;
const EXAMPLE_HINT =
  "Use namespace.table with letters, digits, _ or -, for example db.events or analytics.web.events.";

function invalid(input: string, problem: string): CodedError {
  return new CodedError(ErrorCode.TableNameInvalid, `Table name is not valid: ${problem}.`, {
    hint: EXAMPLE_HINT,
    // Only the length goes into details: the raw input may be hostile or very long.
    details: { length: input.length },
  });
}

/** Describes the first forbidden character in words (never echoing control characters). */
function describeBadCharacter(level: string): string {
  for (const ch of level) {
    if (LEVEL_PATTERN.test(ch)) continue;
    const code = ch.codePointAt(0) ?? 0;
    if (/\s/.test(ch)) return "it contains whitespace";
    if (code < 0x20 || code === 0x7f) return "it contains a control character";
    if (ch === "/" || ch === "\\") return "it contains a path separator";
    if (ch === "%") return "it contains a percent-encoded character";
    if (ch === "'" || ch === '"' || ch === "`") return "it contains a quote";
    return `it contains the character '${ch}', which is not allowed`;
  }
  return "it contains a character that is not allowed";
}

/**
 * Parses `db.events` or `a.b.events` into namespace levels and a name.
 * Throws CodedError(TableNameInvalid) with a hint when the name is unsafe or malformed.
 */
export function parseTableName(input: string): TableRef {
  const trimmed = input.trim();
  if (trimmed.length === 0) throw invalid(input, "it is empty");
  if (trimmed.length > MAX_LENGTH) throw invalid(input, `it is longer than ${MAX_LENGTH} characters`);
  const levels = trimmed.split(".");
  if (levels.length < 2) throw invalid(input, "it has no namespace (expected namespace.table)");
  for (const level of levels) {
    if (level.length === 0)
      throw invalid(input, "it has an empty level (two dots in a row, or a leading or trailing dot)");
    if (!LEVEL_PATTERN.test(level)) throw invalid(input, describeBadCharacter(level));
  }
  const name = levels[levels.length - 1]!;
  return { namespace: levels.slice(0, -1), name };
}

/** The dotted form used in messages and reports, e.g. `db.events`. */
export function formatTableName(ref: TableRef): string {
  return [...ref.namespace, ref.name].join(".");
}

/** True when the string parses as a table name. */
export function isValidTableName(input: string): boolean {
  try {
    parseTableName(input);
    return true;
  } catch {
    return false;
  }
}

/**
 * Flink's metric-id filter replaces space, '.', ':' and ',' with '_' in scope components,
 * so table `iceberg.db.events` shows up as `iceberg_db_events` in metric ids.
 */
export function sanitizeForMetric(s: string): string {
  return s.replace(/[ .:,]/g, "_");
}
