// The diagnosis as a person reads it in a terminal at 3 a.m.: the verdict in one line, the one next
// step with the exact change, the evidence cut short, then what could not be read.

import type { Report, Severity } from "../../core/report/schema.js";
import { findingWords, stepWords } from "../../core/words/labels.js";
import { type Style, styleFor } from "./ansi.js";
import {
  answeredSummary,
  type ChartFile,
  catalogUnreachable,
  describeChange,
  limitList,
  moreLine,
  unansweredSources,
  unconfiguredSources,
  verdictSummary,
} from "./describe.js";
import { cleanText, oneLine } from "./text-safety.js";
import { plainTimes, reportMs, utcStamp } from "./times.js";

export interface TextRenderOptions {
  color: boolean;
  /** Evidence lines shown per finding before "… and N more" (default 4). */
  maxEvidence?: number;
  /** Findings shown before "… and N more" (default 10). */
  maxFindings?: number;
  /** The commit timeline written with --chart. */
  chart?: ChartFile;
}

export function renderReportText(report: Report, options: TextRenderOptions): string {
  const style = styleFor(options.color);
  const unreachable = catalogUnreachable(report);
  const sections = [
    ...(unreachable ? [style.bold(style.red(`! ${oneLine(unreachable, 600)}`))] : []),
    verdictLine(report, style),
    ...(report.catalogNote ? [style.dim(oneLine(report.catalogNote, 400))] : []),
    nextStepLines(report, style).join("\n"),
    evidenceLines(report, style, options).join("\n"),
    sourceLines(report, style).join("\n"),
    options.chart
      ? `${style.bold("Commit timeline:")} ${options.chart.path} (${options.chart.width}×${options.chart.height} px)`
      : "",
  ];
  return `${sections.filter((s) => s.length > 0).join("\n\n")}\n`;
}

function verdictLine(report: Report, style: Style): string {
  const healthy = report.verdict === "healthy";
  const mark = healthy ? style.green("✔") : style.red("✖");
  const title = findingWords(report.verdict);
  const head = `${oneLine(report.table, 255)}: ${title}`;
  const summary = verdictSummary(report);
  const painted = healthy ? style.bold(style.green(head)) : style.bold(style.red(head));
  return summary ? `${mark} ${painted} — ${plainTimes(summary, reportMs(report))}` : `${mark} ${painted}`;
}

function nextStepLines(report: Report, style: Style): string[] {
  const step = report.nextStep;
  if (!step) {
    return report.verdict === "healthy"
      ? [`${style.bold("Next step:")} none needed.`]
      : [
          `${style.bold("Next step:")} none chosen; ${oneLine(report.noStepReason ?? "start from the evidence below.", 400)}`,
        ];
  }
  const lines = [`${style.bold("Next step:")} ${stepWords(step.id)} ${style.dim(`[${step.id}]`)}`];
  lines.push(`  ${oneLine(step.summary, 400)}`);
  const change = describeChange(step.change);
  lines.push(`  ${change.heading}`);
  for (const line of change.lines) lines.push(`    ${style.cyan(line)}`);
  if (change.statement) {
    lines.push("");
    for (const line of cleanText(change.statement.text).split("\n")) lines.push(`    ${line}`);
    lines.push("");
  }
  for (const item of change.checklist) lines.push(`    - ${item}`);
  lines.push(
    step.change.kind === "read-only-check"
      ? style.dim("  The bot runs this check itself, without approval; nothing changes.")
      : step.automatic
        ? style.dim("  The bot can apply this once an approver presses Apply in Slack.")
        : style.dim("  The bot cannot apply this; make the change, then let the bot watch the commits."),
  );
  return lines;
}

const SEVERITY_WIDTH = "critical".length;

function severityLabel(severity: Severity, style: Style): string {
  const padded = severity.padEnd(SEVERITY_WIDTH);
  if (severity === "critical") return style.red(padded);
  if (severity === "warning") return style.yellow(padded);
  return style.dim(padded);
}

function evidenceLines(report: Report, style: Style, options: TextRenderOptions): string[] {
  if (report.findings.length === 0) return [];
  const findings = limitList(report.findings, options.maxFindings ?? 10);
  const lines = [style.bold("Evidence:")];
  // A fact several findings rest on is listed under the first of them only.
  const seen = new Set<string>();
  for (const finding of findings.shown) {
    lines.push(
      `  ${severityLabel(finding.severity, style)}  ${finding.id}: ${plainTimes(oneLine(finding.summary), reportMs(report))}`,
    );
    const fresh = finding.evidence.filter((item) => !seen.has(item.detail));
    const evidence = limitList(fresh, options.maxEvidence ?? 4);
    for (const item of evidence.shown) seen.add(item.detail);
    for (const item of evidence.shown) {
      lines.push(
        `  ${" ".repeat(SEVERITY_WIDTH)}    - ${style.dim(`${item.source}:`)} ${plainTimes(oneLine(item.detail), reportMs(report))}`,
      );
    }
    if (evidence.hidden > 0) lines.push(`  ${" ".repeat(SEVERITY_WIDTH)}    ${moreLine(evidence.hidden)}`);
  }
  if (findings.hidden > 0) lines.push(`  ${moreLine(findings.hidden)}`);
  return lines;
}

function sourceLines(report: Report, style: Style): string[] {
  const lines: string[] = [];
  const missing = unansweredSources(report);
  if (missing.length > 0) {
    lines.push(style.bold("Could not read:"));
    for (const source of missing) lines.push(`  ${style.yellow(source.label)}: ${source.reason}`);
  }
  const unconfigured = unconfiguredSources(report);
  if (unconfigured.length > 0) lines.push(style.dim(`Not configured: ${unconfigured.join(", ")}`));
  const answered = answeredSummary(report);
  const read = answered.length > 0 ? `read from ${answered}` : "no source answered";
  lines.push(style.dim(`Generated ${utcStamp(reportMs(report))}, ${read}`));
  return lines;
}
