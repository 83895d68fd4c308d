// How a proposed change reads in Slack: property changes as "key: old → new" lines, restarts as the
// REST call, manual steps as the statement to copy. Everything inside is escaped for mrkdwn.

import { shownValue } from "../../../core/properties.js";
import type { Change, PropertyChange } from "../../../core/report/schema.js";
import { renderSetProperties, renderUnsetProperties } from "../../../core/statements.js";
import { parseTableName } from "../../../core/table-name.js";
import { CodedError } from "../../../errors.js";
import { restartCall } from "../../render/describe.js";
import { slackTimes } from "../../render/times.js";
import { escapeCode, escapeCodeBlock, escapeMrkdwn } from "./limits.js";

export function codeBlock(body: string): string {
  return `\`\`\`${escapeCodeBlock(body)}\`\`\``;
}

/** "commit.retry.num-retries: unset (default 4) → 10", one line per property. */
function diffLines(changes: PropertyChange[]): string {
  return changes
    .map((c) => `${c.key}: ${shownValue(c.key, c.current)} → ${shownValue(c.key, c.proposed)}`)
    .join("\n");
}

/** SET and UNSET statements for a table-properties change, quoted by the statement renderer. */
function propertiesStatement(table: string, changes: PropertyChange[]): string | undefined {
  const set: Array<[string, string]> = [];
  const unset: string[] = [];
  for (const c of changes) {
    if (c.proposed === null) unset.push(c.key);
    else set.push([c.key, c.proposed]);
  }
  try {
    const target = { table: parseTableName(table) };
    const lines: string[] = [];
    if (set.length > 0) lines.push(renderSetProperties(target, set));
    if (unset.length > 0) lines.push(renderUnsetProperties(target, unset));
    return lines.join("\n");
  } catch (err) {
    // A name or value that cannot be quoted safely gets no statement to copy; the diff still shows.
    if (err instanceof CodedError) return undefined;
    throw err;
  }
}

/** The statement a person would run to make the change themselves, when there is one. */
export function byHandStatement(change: Change): string | undefined {
  switch (change.kind) {
    case "table-properties":
      return propertiesStatement(change.table, change.changes);
    case "connector-restart":
      return restartCall(change);
    case "connector-config":
      // PUT /config replaces the whole config, so the diff above is the honest instruction.
      return undefined;
    case "read-only-check":
    case "manual":
      return change.statement;
  }
}

function onCluster(cluster: string | undefined): string {
  return cluster ? ` on Connect cluster \`${escapeCode(cluster)}\`` : "";
}

/** What will change, as mrkdwn. */
export function renderChange(change: Change): string {
  switch (change.kind) {
    case "table-properties":
      return `Table properties of \`${escapeCode(change.table)}\`${change.catalogSource ? ` in catalog \`${escapeCode(change.catalogSource)}\`` : ""}:\n${codeBlock(diffLines(change.changes))}`;
    case "connector-config":
      return `Config of connector \`${escapeCode(change.connector)}\`${onCluster(change.cluster)}:\n${codeBlock(diffLines(change.changes))}`;
    case "connector-restart": {
      const scope = change.onlyFailed
        ? "its failed tasks"
        : change.includeTasks
          ? "all its tasks"
          : "the connector only";
      return `Restart connector \`${escapeCode(change.connector)}\`${onCluster(change.cluster)} (${scope}):\n${codeBlock(byHandStatement(change) ?? "")}`;
    }
    case "read-only-check":
    case "manual": {
      const parts: string[] = [];
      if (change.statement !== undefined) parts.push(codeBlock(change.statement));
      if (change.checklist.length > 0)
        // A quoted exception carries ISO stamps: each reader sees them in their own time zone.
        parts.push(change.checklist.map((item) => `• ${slackTimes(escapeMrkdwn(item))}`).join("\n"));
      return parts.length === 0 ? "No change to make; follow the guidance above." : parts.join("\n");
    }
  }
}
