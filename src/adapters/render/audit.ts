// The audit checklist outside Slack, failures first because they are what a person acts on: a
// compact terminal table (status, check id, what was found, and for anything not passing the
// values read and the one statement that fixes it), or a Markdown table with each fix ready to copy.

import type { AuditCheck, AuditReport } from "../../core/report/schema.js";
import { type Style, styleFor } from "./ansi.js";
import { moreLine } from "./describe.js";
import { mdCode, mdText } from "./markdown-safety.js";
import { cleanText, oneLine } from "./text-safety.js";

const RANK: Record<AuditCheck["status"], number> = { fail: 0, warn: 1, pass: 2 };

export function sortedChecks(report: AuditReport): AuditCheck[] {
  return report.checks
    .map((check, index) => ({ check, index }))
    .sort((a, b) => RANK[a.check.status] - RANK[b.check.status] || a.index - b.index)
    .map(({ check }) => check);
}

export function auditCounts(report: AuditReport): Record<AuditCheck["status"], number> {
  const counts = { fail: 0, warn: 0, pass: 0 };
  for (const check of report.checks) counts[check.status] += 1;
  return counts;
}

/** `key=value` pairs, unset values shown as such, cut after `max` entries. */
export function formatValues(values: AuditCheck["values"], max = 4): string {
  const entries = Object.entries(values);
  const shown = entries
    .slice(0, max)
    .map(([key, value]) => `${oneLine(key, 80)}=${value === null ? "unset" : oneLine(value, 80)}`);
  if (entries.length > max) shown.push(moreLine(entries.length - max));
  return shown.join(", ");
}

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

export function renderAuditMarkdown(report: AuditReport): string {
  const counts = auditCounts(report);
  const lines = [
    `### Audit of ${mdText(report.table, 255)}: ${counts.fail} fail, ${counts.warn} warn, ${counts.pass} pass`,
    "",
  ];
  if (report.checks.length === 0) {
    lines.push("No checks ran.");
  } else {
    lines.push("| status | check | found | fix |", "| --- | --- | --- | --- |");
    for (const check of sortedChecks(report)) {
      const status = check.status === "pass" ? "pass" : `**${check.status}**`;
      const values = check.status === "pass" ? "" : formatValues(check.values);
      const found = values ? `${mdText(check.summary)} (${mdText(values)})` : mdText(check.summary);
      const fix = check.fix && check.status !== "pass" ? mdCode(check.fix, 400).replace(/\|/g, "\\|") : "";
      lines.push(`| ${status} | ${mdCode(check.id)} | ${found} | ${fix} |`);
    }
  }
  lines.push("", `_Generated ${report.generatedAt}._`);
  return `${lines.join("\n")}\n`;
}
