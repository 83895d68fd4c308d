// The diagnosis as Markdown (for tickets, PR comments and chat tools that render it): the same
// order as the terminal text, with the statement in a fenced block ready to copy.

import { shownValue } from "../../core/properties.js";
import type { Report } from "../../core/report/schema.js";
import { findingWords, stepWords } from "../../core/words/labels.js";
import {
  answeredSummary,
  type ChartFile,
  catalogUnreachable,
  describeChange,
  formatPropertyValue,
  limitList,
  moreLine,
  unansweredSources,
  unconfiguredSources,
  verdictSummary,
} from "./describe.js";
import { mdCode, mdCodeBlock, mdText } from "./markdown-safety.js";
import { plainTimes, reportMs, utcStamp } from "./times.js";

export interface MarkdownRenderOptions {
  maxEvidence?: number;
  maxFindings?: number;
  /** The commit timeline written with --chart, embedded under the verdict. */
  chart?: ChartFile;
}

export function renderReportMarkdown(report: Report, options: MarkdownRenderOptions = {}): string {
  const blocks: string[] = [];
  const summary = verdictSummary(report);
  const mark = report.verdict === "healthy" ? "✅" : "🔴";
  const unreachable = catalogUnreachable(report);
  if (unreachable) blocks.push(`> ⚠️ **${mdText(unreachable, 600)}**`);
  blocks.push(`### ${mark} ${mdText(report.table, 255)}: ${findingWords(report.verdict)}`);
  if (summary)
    blocks.push(`**Verdict:** ${mdText(plainTimes(summary, reportMs(report)))} (${mdCode(report.verdict)})`);
  if (options.chart) blocks.push(chartMarkdown(options.chart));
  blocks.push(nextStepMarkdown(report));
  const evidence = evidenceMarkdown(report, options);
  if (evidence) blocks.push(evidence);
  blocks.push(sourcesMarkdown(report));
  return `${blocks.join("\n\n")}\n`;
}

/** The picture by its path, as written (relative paths resolve next to the report). */
function chartMarkdown(chart: ChartFile): string {
  const target = encodeURI(chart.path.replace(/\\/g, "/")).replace(
    /[()]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `![${mdText(chart.altText, 400)}](${target})`;
}

function nextStepMarkdown(report: Report): string {
  const step = report.nextStep;
  if (!step) {
    return report.verdict === "healthy"
      ? "**Next step:** none needed."
      : `**Next step:** none chosen; ${mdText(report.noStepReason ?? "start from the evidence below.", 400)}`;
  }
  const parts = [`**Next step: ${stepWords(step.id)}** (${mdCode(step.id)}): ${mdText(step.summary, 400)}`];
  const change = describeChange(step.change);
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
  parts.push(
    step.change.kind === "read-only-check"
      ? "_The bot runs this check itself, without approval; nothing changes._"
      : step.automatic
        ? "_The bot can apply this once an approver presses Apply in Slack._"
        : "_The bot cannot apply this; make the change, then let the bot watch the commits._",
  );
  return parts.join("\n\n");
}

function evidenceMarkdown(report: Report, options: MarkdownRenderOptions): string | undefined {
  if (report.findings.length === 0) return undefined;
  const findings = limitList(report.findings, options.maxFindings ?? 10);
  const lines = ["**Evidence**", ""];
  for (const finding of findings.shown) {
    lines.push(
      `- **${finding.severity}** ${mdCode(finding.id)}: ${mdText(plainTimes(finding.summary, reportMs(report)))}`,
    );
    const evidence = limitList(finding.evidence, options.maxEvidence ?? 4);
    for (const item of evidence.shown)
      lines.push(`  - ${item.source}: ${mdText(plainTimes(item.detail, reportMs(report)))}`);
    if (evidence.hidden > 0) lines.push(`  - ${moreLine(evidence.hidden)}`);
  }
  if (findings.hidden > 0) lines.push(`- ${moreLine(findings.hidden)}`);
  return lines.join("\n");
}

function sourcesMarkdown(report: Report): string {
  const lines: string[] = [];
  const missing = unansweredSources(report);
  if (missing.length > 0) {
    lines.push("**Could not read**", "");
    for (const source of missing) lines.push(`- ${source.label}: ${mdText(source.reason)}`);
    lines.push("");
  }
  const unconfigured = unconfiguredSources(report);
  if (unconfigured.length > 0) lines.push(`_Not configured: ${unconfigured.join(", ")}_`, "");
  const answered = answeredSummary(report);
  lines.push(
    `_Generated ${utcStamp(reportMs(report))}, ${answered ? `read from ${answered}` : "no source answered"}._`,
  );
  return lines.join("\n");
}
