// `/iceberg audit <table>`: the concurrent-writers checklist as a compact table, failures first,
// then the one statement that fixes each failing or warning check.

import type { AuditCheck, AuditReport } from "../../../core/report/schema.js";
import { auditCounts, sortedChecks } from "../../render/audit.js";
import { slackWhen } from "../../render/times.js";
import type { KnownBlock, SlackMessage } from "./block-kit.js";
import { context, section } from "./blocks.js";
import { codeBlock } from "./change.js";
import { escapeCode, escapeMrkdwn, formatCount, LIMITS, packLines } from "./limits.js";

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

  const table = packLines(checks.map(checkLine), { maxSections: 3 });
  blocks.push(...table.texts.map((t) => section(t)));
  if (table.used < checks.length)
    blocks.push(context(`… and ${formatCount(checks.length - table.used)} more checks`));

  const fixes = checks
    .filter((c) => c.status !== "pass" && c.fix !== undefined && c.fix !== "")
    .map((c) => `*${c.id}*\n${codeBlock(c.fix ?? "")}`);
  if (fixes.length > 0) {
    const room = LIMITS.messageBlocks - blocks.length - 3;
    const packed = packLines(fixes, { maxSections: room });
    packed.texts.forEach((t, i) => {
      blocks.push(section(i === 0 ? `*Fixes*\n${t}` : t));
    });
    if (packed.used < fixes.length)
      blocks.push(context(`… and ${formatCount(fixes.length - packed.used)} more fixes`));
  }
  blocks.push(context(`audited ${slackWhen(Date.parse(report.generatedAt))}`));
  return { text: `Audit of ${escapeMrkdwn(report.table)}: ${summary}`, blocks };
}
