// `/iceberg audit <table>`: the concurrent-writers checklist as a compact table, failures first,
// then the one statement that fixes each failing or warning check.

import type { AuditCheck, AuditReport } from "../../../core/report/schema.js";
import { auditCounts, sortedChecks } from "../../render/audit.js";
import { slackWhen } from "../../render/times.js";
import type { KnownBlock, SlackMessage } from "./block-kit.js";
import { context, packedSections, section } from "./blocks.js";
import { codeBlock } from "./change.js";
import { escapeCode, escapeMrkdwn, LIMITS } from "./limits.js";

const STATUS_EMOJI: Record<AuditCheck["status"], string> = {
  fail: ":x:",
  warn: ":warning:",
  pass: ":white_check_mark:",
};

function valuesText(values: AuditCheck["values"]): string {
  const entries = Object.entries(values);
  if (entries.length === 0) return "";
  const shown = entries.map(
    ([k, v]) => `\`${escapeCode(k)}\` = ${v === null ? "unset" : `\`${escapeCode(v)}\``}`,
  );
  return ` (${shown.join(", ")})`;
}

function checkLine(check: AuditCheck): string {
  const values = check.status === "pass" ? "" : valuesText(check.values);
  return `${STATUS_EMOJI[check.status]} \`${check.status}\` *${check.id}*: ${escapeMrkdwn(check.summary)}${values}`;
}

export function renderAudit(report: AuditReport): SlackMessage {
  const checks = sortedChecks(report);
  const count = auditCounts(report);
  const summary = `${count.fail} fail · ${count.warn} warn · ${count.pass} pass`;
  const blocks: KnownBlock[] = [
    section(`:clipboard: *Audit of \`${escapeCode(report.table)}\`:* ${summary}`),
  ];

  blocks.push(...packedSections(checks.map(checkLine), { maxSections: 3, more: "more checks" }));

  const fixes = checks
    .filter((c) => c.status !== "pass" && c.fix !== undefined && c.fix !== "")
    .map((c) => `*${c.id}*\n${codeBlock(c.fix ?? "")}`);
  if (fixes.length > 0) {
    const room = LIMITS.messageBlocks - blocks.length - 3;
    blocks.push(...packedSections(fixes, { maxSections: room, more: "more fixes", heading: "*Fixes*" }));
  }
  blocks.push(context(`audited ${slackWhen(Date.parse(report.generatedAt))}`));
  return { text: `Audit of ${escapeMrkdwn(report.table)}: ${summary}`, blocks };
}
