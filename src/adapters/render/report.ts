// The diagnosis outside Slack, in the same order in two syntaxes: terminal text, read at 3 a.m.
// (the verdict in one line, the one next step with the exact change, the evidence cut short, then
// what could not be read), and Markdown for tickets, PR comments and chat tools that render it,
// with the statement in a fenced block ready to copy. One walk over the report; a small table per
// syntax says how each piece is written.

import { shownValue } from "../../core/properties.js";
import type { EvidenceItem, Finding, NextStep, Report, Severity } from "../../core/report/schema.js";
import { utcDateTime } from "../../core/words/clock.js";
import { findingWords, stepWords } from "../../core/words/labels.js";
import { type Style, styleFor } from "./ansi.js";
import {
  answeredSummary,
  type ChartFile,
  catalogUnreachable,
  type DescribedChange,
  describeChange,
  formatPropertyValue,
  limitList,
  moreLine,
  unansweredSources,
  unconfiguredSources,
  verdictSummary,
} from "./describe.js";
import { mdCode, mdCodeBlock, mdText } from "./markdown-safety.js";
import { cleanText, oneLine } from "./text-safety.js";
import { plainTimes, reportMs } from "./times.js";

export interface ReportRenderOptions {
  /** Evidence lines shown per finding before "… and N more" (default 4). */
  maxEvidence?: number;
  /** Findings shown before "… and N more" (default 10). */
  maxFindings?: number;
  /** The commit timeline written with --chart. */
  chart?: ChartFile;
}

/** How one syntax writes each piece the walk (renderReport) puts in order. */
interface Syntax {
  /** The opening blocks: the catalog's alarm, the verdict, and what the syntax shows with them. */
  head(report: Report, unreachable: string | undefined, chart?: ChartFile): string[];
  label(text: string): string;
  inline(text: string, max: number): string;
  /** The chosen step with its change, and the line saying who applies it. */
  step(step: NextStep, change: DescribedChange, applies: string): string;
  evidenceTitle: string[];
  finding(finding: Finding, nowMs: number): string;
  item(item: EvidenceItem, nowMs: number): string;
  /** "… and N more" under a finding's evidence (nested) or under the findings. */
  more(hidden: number, nested: boolean): string;
  /** A fact several findings rest on is listed under the first of them only. */
  onceOnly: boolean;
  sources(missing: { label: string; reason: string }[], unconfigured: string[], generated: string): string;
  tail(chart?: ChartFile): string;
}

function renderReport(report: Report, syntax: Syntax, options: ReportRenderOptions): string {
  const blocks = [
    ...syntax.head(report, catalogUnreachable(report), options.chart),
    nextStep(report, syntax),
    evidence(report, syntax, options),
    sources(report, syntax),
    syntax.tail(options.chart),
  ];
  return `${blocks.filter((b) => b.length > 0).join("\n\n")}\n`;
}

function nextStep(report: Report, syntax: Syntax): string {
  const step = report.nextStep;
  if (!step) {
    return report.verdict === "healthy"
      ? `${syntax.label("Next step:")} none needed.`
      : `${syntax.label("Next step:")} none chosen; ${syntax.inline(report.noStepReason ?? "start from the evidence below.", 400)}`;
  }
  const applies =
    step.change.kind === "read-only-check"
      ? "The bot runs this check itself, without approval; nothing changes."
      : step.automatic
        ? "The bot can apply this once an approver presses Apply in Slack."
        : "The bot cannot apply this; make the change, then let the bot watch the commits.";
  return syntax.step(step, describeChange(step.change), applies);
}

function evidence(report: Report, syntax: Syntax, options: ReportRenderOptions): string {
  if (report.findings.length === 0) return "";
  const nowMs = reportMs(report);
  const findings = limitList(report.findings, options.maxFindings ?? 10);
  const lines = [...syntax.evidenceTitle];
  const seen = new Set<string>();
  for (const finding of findings.shown) {
    lines.push(syntax.finding(finding, nowMs));
    const fresh = syntax.onceOnly
      ? finding.evidence.filter((item) => !seen.has(item.detail))
      : finding.evidence;
    const shown = limitList(fresh, options.maxEvidence ?? 4);
    for (const item of shown.shown) {
      seen.add(item.detail);
      lines.push(syntax.item(item, nowMs));
    }
    if (shown.hidden > 0) lines.push(syntax.more(shown.hidden, true));
  }
  if (findings.hidden > 0) lines.push(syntax.more(findings.hidden, false));
  return lines.join("\n");
}

function sources(report: Report, syntax: Syntax): string {
  const answered = answeredSummary(report);
  const read = answered.length > 0 ? `read from ${answered}` : "no source answered";
  const generated = `Generated ${utcDateTime(reportMs(report))}, ${read}`;
  return syntax.sources(unansweredSources(report), unconfiguredSources(report), generated);
}

const SEVERITY_WIDTH = "critical".length;
const EVIDENCE_INDENT = `  ${" ".repeat(SEVERITY_WIDTH)}    `;

function textSyntax(style: Style): Syntax {
  const severity = (s: Severity) =>
    (s === "critical" ? style.red : s === "warning" ? style.yellow : style.dim)(s.padEnd(SEVERITY_WIDTH));
  return {
    head: (report, unreachable) => {
      const healthy = report.verdict === "healthy";
      const paint = healthy ? style.green : style.red;
      const painted = style.bold(paint(`${oneLine(report.table, 255)}: ${findingWords(report.verdict)}`));
      const summary = verdictSummary(report);
      return [
        unreachable ? style.bold(style.red(`! ${oneLine(unreachable, 600)}`)) : "",
        `${paint(healthy ? "✔" : "✖")} ${painted}${summary ? ` — ${plainTimes(summary, reportMs(report))}` : ""}`,
        report.catalogNote ? style.dim(oneLine(report.catalogNote, 400)) : "",
      ];
    },
    label: style.bold,
    inline: oneLine,
    step: (step, change, applies) => {
      const lines = [`${style.bold("Next step:")} ${stepWords(step.id)} ${style.dim(`[${step.id}]`)}`];
      lines.push(`  ${oneLine(step.summary, 400)}`, `  ${change.heading}`);
      for (const line of change.lines) lines.push(`    ${style.cyan(line)}`);
      if (change.statement) {
        lines.push(
          "",
          ...cleanText(change.statement.text)
            .split("\n")
            .map((line) => `    ${line}`),
          "",
        );
      }
      for (const item of change.checklist) lines.push(`    - ${item}`);
      lines.push(style.dim(`  ${applies}`));
      return lines.join("\n");
    },
    evidenceTitle: [style.bold("Evidence:")],
    finding: (f, nowMs) => `  ${severity(f.severity)}  ${f.id}: ${plainTimes(oneLine(f.summary), nowMs)}`,
    item: (item, nowMs) =>
      `${EVIDENCE_INDENT}- ${style.dim(`${item.source}:`)} ${plainTimes(oneLine(item.detail), nowMs)}`,
    more: (hidden, nested) => `${nested ? EVIDENCE_INDENT : "  "}${moreLine(hidden)}`,
    onceOnly: true,
    sources: (missing, unconfigured, generated) => {
      const lines: string[] = [];
      if (missing.length > 0) lines.push(style.bold("Could not read:"));
      for (const source of missing) lines.push(`  ${style.yellow(source.label)}: ${source.reason}`);
      if (unconfigured.length > 0) lines.push(style.dim(`Not configured: ${unconfigured.join(", ")}`));
      lines.push(style.dim(generated));
      return lines.join("\n");
    },
    tail: (chart) =>
      chart ? `${style.bold("Commit timeline:")} ${chart.path} (${chart.width}×${chart.height} px)` : "",
  };
}

const markdownSyntax: Syntax = {
  head: (report, unreachable, chart) => {
    const summary = verdictSummary(report);
    const mark = report.verdict === "healthy" ? "✅" : "🔴";
    return [
      unreachable ? `> ⚠️ **${mdText(unreachable, 600)}**` : "",
      `### ${mark} ${mdText(report.table, 255)}: ${findingWords(report.verdict)}`,
      summary
        ? `**Verdict:** ${mdText(plainTimes(summary, reportMs(report)))} (${mdCode(report.verdict)})`
        : "",
      chart ? chartMarkdown(chart) : "",
    ];
  },
  label: (text) => `**${text}**`,
  inline: mdText,
  step: (step, change, applies) => {
    const parts = [`**Next step: ${stepWords(step.id)}** (${mdCode(step.id)}): ${mdText(step.summary, 400)}`];
    const rows: string[] = [mdText(change.heading, 300)];
    if (step.change.kind === "table-properties" || step.change.kind === "connector-config") {
      for (const c of step.change.changes) {
        const proposed = c.proposed === null ? "(removed)" : mdCode(formatPropertyValue(c.proposed));
        rows.push(
          `- ${mdCode(c.key)}: ${mdCode(formatPropertyValue(shownValue(c.key, c.current)))} → ${proposed}`,
        );
      }
    } else {
      for (const line of change.lines) rows.push(`- ${mdCode(line, 400)}`);
    }
    parts.push(rows.join("\n"));
    if (change.statement) parts.push(mdCodeBlock(change.statement.text, change.statement.language));
    if (change.checklist.length > 0)
      parts.push(change.checklist.map((item) => `- [ ] ${mdText(item, 400)}`).join("\n"));
    parts.push(`_${applies}_`);
    return parts.join("\n\n");
  },
  evidenceTitle: ["**Evidence**", ""],
  finding: (f, nowMs) => `- **${f.severity}** ${mdCode(f.id)}: ${mdText(plainTimes(f.summary, nowMs))}`,
  item: (item, nowMs) => `  - ${item.source}: ${mdText(plainTimes(item.detail, nowMs))}`,
  more: (hidden, nested) => `${nested ? "  - " : "- "}${moreLine(hidden)}`,
  onceOnly: false,
  sources: (missing, unconfigured, generated) => {
    const lines: string[] = [];
    if (missing.length > 0) lines.push("**Could not read**", "");
    for (const source of missing) lines.push(`- ${source.label}: ${mdText(source.reason)}`);
    if (missing.length > 0) lines.push("");
    if (unconfigured.length > 0) lines.push(`_Not configured: ${unconfigured.join(", ")}_`, "");
    lines.push(`_${generated}._`);
    return lines.join("\n");
  },
  tail: () => "",
};

/** The picture by its path, as written (relative paths resolve next to the report). */
function chartMarkdown(chart: ChartFile): string {
  const target = encodeURI(chart.path.replace(/\\/g, "/")).replace(
    /[()]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `![${mdText(chart.altText, 400)}](${target})`;
}

export function renderReportText(report: Report, options: ReportRenderOptions & { color: boolean }): string {
  return renderReport(report, textSyntax(styleFor(options.color)), options);
}

export function renderReportMarkdown(report: Report, options: ReportRenderOptions = {}): string {
  return renderReport(report, markdownSyntax, options);
}
