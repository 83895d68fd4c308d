// The audit checklist as a Markdown table, failures first, each with its fix ready to copy.

import type { AuditReport } from "../../../core/report/schema.js";
import { mdCode, mdText } from "../markdown-safety.js";
import { auditCounts, formatValues, sortedChecks } from "./shared.js";

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
