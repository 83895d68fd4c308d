// The sweep's ranking in the terminal and in Markdown: worst tables first with their score,
// failing checks and the one-line fix, then the counts by check and the tables not read.

import { AUDIT_CHECK_IDS } from "../../core/ids.js";
import type { SweepReport } from "../../services/sweep/report.js";
import { styleFor } from "./ansi.js";
import { mdCode, mdText } from "./markdown-safety.js";
import { oneLine } from "./text-safety.js";

export function renderSweepText(report: SweepReport, options: { color: boolean }): string {
  const style = styleFor(options.color);
  const scope = report.namespace ? ` under ${oneLine(report.namespace, 255)}` : "";
  const head = `Sweep${scope}: ${report.tables} tables, ${report.failingTables} with failing checks, ${report.unhealthyNow} failing now`;
  const lines = [style.bold(report.failingTables > 0 ? style.red(head) : style.green(head)), ""];
  const width = Math.max(5, ...report.ranking.map((t) => t.table.length));
  for (const t of report.ranking) {
    const checks = t.failing.map((c) => (c.status === "fail" ? style.red(c.id) : style.yellow(`${c.id}?`)));
    const now = t.verdict === "healthy" ? "" : style.red(` [${t.verdict}]`);
    lines.push(
      `${String(t.rank).padStart(4)}. ${String(t.score).padStart(3)}  ${oneLine(t.table, 255).padEnd(width)}  ${checks.join(", ") || style.green("all checks pass")}${now}`,
    );
    if (t.fix && t.failing.length > 0)
      lines.push(`${" ".repeat(12 + width)}fix: ${style.cyan(oneLine(t.fix))}`);
  }
  lines.push("", "Counts by check (fail / warn):");
  for (const id of AUDIT_CHECK_IDS) {
    const c = report.countsByCheck[id];
    if (c.fail + c.warn > 0) lines.push(`  ${id.padEnd(24)} ${String(c.fail).padStart(5)} / ${c.warn}`);
  }
  if (report.errors.length > 0) {
    lines.push("", style.yellow(`Not read (${report.errors.length}):`));
    for (const e of report.errors.slice(0, 50)) lines.push(`  ${oneLine(e.table, 255)}: ${oneLine(e.error)}`);
  }
  if (report.skipped) {
    lines.push("", style.yellow("Partial sweep; left out:"));
    for (const s of report.skipped) lines.push(`  ${s.count} × ${s.why}`);
  }
  lines.push(
    "",
    style.dim(`score: 100 = nothing to fix (docs/sweep.md); ? = warning. Generated ${report.generatedAt}`),
  );
  return `${lines.join("\n")}\n`;
}

export function renderSweepMarkdown(report: SweepReport): string {
  const scope = report.namespace ? ` under ${mdCode(report.namespace)}` : "";
  const lines = [
    `## Sweep${scope}: ${report.tables} tables, ${report.failingTables} with failing checks, ${report.unhealthyNow} failing now`,
    "",
    "| # | score | table | failing checks | fix |",
    "| ---: | ---: | --- | --- | --- |",
  ];
  for (const t of report.ranking) {
    // A table failing right now is listed first and says so before its checks.
    const now = t.verdict === "healthy" ? [] : [`**failing now: ${mdCode(t.verdict)}**`];
    const checks = [
      ...now,
      ...t.failing.map((c) => (c.status === "fail" ? `**${c.id}**` : `${c.id} (warn)`)),
    ].join(", ");
    const fix = t.fix && t.failing.length > 0 ? mdCode(t.fix) : "";
    lines.push(`| ${t.rank} | ${t.score} | ${mdCode(t.table)} | ${checks || "all pass"} | ${fix} |`);
  }
  lines.push("", "| check | fail | warn |", "| --- | ---: | ---: |");
  for (const id of AUDIT_CHECK_IDS) {
    const c = report.countsByCheck[id];
    if (c.fail + c.warn > 0) lines.push(`| ${id} | ${c.fail} | ${c.warn} |`);
  }
  if (report.errors.length > 0) {
    lines.push("", `**Not read (${report.errors.length}):**`, "");
    for (const e of report.errors.slice(0, 50)) lines.push(`- ${mdCode(e.table)}: ${mdText(e.error)}`);
  }
  if (report.skipped) {
    lines.push("", "**Partial sweep; left out:**", "");
    for (const s of report.skipped) lines.push(`- ${s.count} × ${mdText(s.why)}`);
  }
  lines.push("", `_Score 100 = nothing to fix; see docs/sweep.md. Generated ${report.generatedAt}._`);
  return `${lines.join("\n")}\n`;
}
