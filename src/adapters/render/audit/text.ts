// The audit checklist as a compact terminal table: status, check id, what was found, and for
// anything not passing the values read and the one statement that fixes it.

import type { AuditCheck, AuditReport } from "../../../core/report/schema.js";
import { type Style, styleFor } from "../ansi.js";
import { cleanText, oneLine } from "../text-safety.js";
import { auditCounts, formatValues, sortedChecks } from "./shared.js";

export interface AuditTextOptions {
  color: boolean;
}

export function renderAuditText(report: AuditReport, options: AuditTextOptions): string {
  const style = styleFor(options.color);
  const counts = auditCounts(report);
  const head = `${oneLine(report.table, 255)} audit: ${counts.fail} fail, ${counts.warn} warn, ${counts.pass} pass`;
  const lines = [
    style.bold(counts.fail > 0 ? style.red(head) : counts.warn > 0 ? style.yellow(head) : style.green(head)),
  ];
  if (report.checks.length === 0) lines.push("  (no checks ran)");
  const checks = sortedChecks(report);
  const idWidth = Math.max(0, ...checks.map((c) => c.id.length));
  const indent = " ".repeat(2 + 4 + 2 + idWidth + 2);
  for (const check of checks) {
    lines.push(
      `  ${statusLabel(check.status, style)}  ${check.id.padEnd(idWidth)}  ${oneLine(check.summary)}`,
    );
    if (check.status === "pass") continue;
    const values = formatValues(check.values);
    if (values) lines.push(`${indent}${style.dim(`values: ${values}`)}`);
    if (check.fix) {
      const [first = "", ...rest] = cleanText(check.fix).trim().split("\n");
      lines.push(`${indent}fix: ${style.cyan(first)}`);
      for (const line of rest) lines.push(`${indent}     ${style.cyan(line)}`);
    }
  }
  lines.push("", style.dim(`Generated ${report.generatedAt}`));
  return `${lines.join("\n")}\n`;
}

function statusLabel(status: AuditCheck["status"], style: Style): string {
  const padded = status.padEnd(4);
  if (status === "fail") return style.red(padded);
  if (status === "warn") return style.yellow(padded);
  return style.green(padded);
}
