// Table property keys a playbook would set that Iceberg does not define: in table-properties
// changes and in the TBLPROPERTIES of statements people copy. Warnings, not errors: a key may be
// an engine's own, but a typo ("commit.retry.num-retry") is far more likely.

import { ICEBERG_TABLE_PROPERTIES, isIcebergTableProperty } from "../iceberg-table-properties.js";
import { closestMatch } from "../incident/closest-match.js";
import type { PlaybookFile, PlaybookProblem } from "./schema.js";

export function propertyKeyWarnings(playbook: PlaybookFile, text: string, file: string): PlaybookProblem[] {
  const keys: string[] = [];
  const statements: string[] = [];
  if (playbook.kind === "steps") {
    for (const step of playbook.steps) {
      for (const change of step.changes) {
        if (change.kind === "table-properties") keys.push(...change.set.map((p) => p.key));
        if (change.kind === "manual" && change.statement) statements.push(change.statement);
      }
    }
  } else {
    for (const fix of Object.values(playbook.fixes)) if (fix?.statement) statements.push(fix.statement);
  }
  for (const statement of statements) keys.push(...tblPropertiesKeys(statement));
  const warnings: PlaybookProblem[] = [];
  for (const key of new Set(keys)) {
    // Templated keys ('write.{command}.isolation-level') are checked once filled in, not here.
    if (key.includes("{") || isIcebergTableProperty(key)) continue;
    const guess = closestMatch(key, ICEBERG_TABLE_PROPERTIES);
    warnings.push({
      file,
      line: lineOf(text, key),
      severity: "warning",
      message: `table property ${key} is not one Iceberg defines${guess ? `; did you mean ${guess}?` : ""}`,
    });
  }
  return warnings;
}

/** The quoted keys of `TBLPROPERTIES ('k' = 'v', ...)` and `SET TBLPROPERTIES` clauses. */
function tblPropertiesKeys(statement: string): string[] {
  const keys: string[] = [];
  for (const clause of statement.matchAll(/TBLPROPERTIES\s*\(([^)]*)\)/gi)) {
    for (const pair of (clause[1] ?? "").matchAll(/'([^']+)'\s*=/g)) if (pair[1]) keys.push(pair[1]);
  }
  return keys;
}

function lineOf(text: string, key: string): number {
  const index = text.indexOf(key);
  return index < 0 ? 1 : text.slice(0, index).split("\n").length;
}
