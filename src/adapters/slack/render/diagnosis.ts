// The diagnosis message: verdict first, then the one next step, then the evidence behind it, then
// what could not be read. Long evidence is cut with an exact "… and N more".

import { SOURCE_NAMES } from "../../../core/ids.js";
import type { Finding, Report } from "../../../core/report/schema.js";
import { slackTimes, slackWhen } from "../../render/times.js";
import type { KnownBlock, ModalView, SlackMessage } from "./block-kit.js";
import { context, section } from "./blocks.js";
import { renderChange } from "./change.js";
import { findingLabel, SOURCE_LABELS, STEP_TITLES, VERDICT_LABELS } from "./labels.js";
import { capBlocks, escapeMrkdwn, escapeOutside, formatCount, LIMITS, packLines } from "./limits.js";
import type { DiagnosisOptions } from "./view-models.js";

export type { DiagnosisOptions } from "./view-models.js";

const DEFAULT_MAX_EVIDENCE = 8;

const now = (report: Report) => Date.parse(report.generatedAt);

function verdictText(report: Report): string {
  const emoji = report.verdict === "healthy" ? ":white_check_mark:" : ":mag:";
  const label = VERDICT_LABELS[report.verdict];
  const finding = report.findings.find((f) => f.id === report.verdict);
  const summary = finding === undefined ? "" : `\n${slackTimes(escapeMrkdwn(finding.summary), now(report))}`;
  const catalog = report.sources.catalog;
  const refused = catalog.httpStatus === 401 || catalog.httpStatus === 403;
  const unreachable =
    catalog.status === "unavailable"
      ? `:warning: *The Iceberg REST catalog ${refused ? "refused the bot's credential" : "was unreachable"}* (${escapeMrkdwn(catalog.error ?? "no answer")}); this verdict rests on what the other sources show.\n`
      : "";
  return `${unreachable}${emoji} *${escapeMrkdwn(report.table)}: ${label}*${summary}`;
}

function nextStepText(report: Report): string {
  const step = report.nextStep;
  if (step === null) {
    return report.verdict === "healthy"
      ? "*Next step:* none; the writer is committing normally."
      : `*Next step:* none chosen; ${escapeMrkdwn(report.noStepReason ?? "no playbook step matches these findings yet; the evidence below is what we know.")}`;
  }
  const how =
    step.change.kind === "read-only-check"
      ? "the bot checks this itself; nothing changes"
      : step.automatic
        ? "the bot can apply it after approval"
        : "a person makes this change";
  return `*Next step: ${STEP_TITLES[step.id]}* (${how})\n${escapeMrkdwn(step.summary)}\n${renderChange(step.change)}`;
}

/** Evidence lines grouped under their finding; the count covers evidence items only. */
function evidenceLines(
  findings: Finding[],
  verdict: Report["verdict"],
  maxItems: number,
  nowMs: number,
): { lines: string[]; items: number[] } {
  const lines: string[] = [];
  // items[i] = how many evidence items lines[0..i] hold, so a cut anywhere gives an exact count.
  const items: number[] = [];
  let shown = 0;
  // A fact several findings rest on (the writer's newest snapshot, say) is listed once.
  const seen = new Set<string>();
  for (const finding of findings) {
    if (shown >= maxItems) break;
    // The verdict's summary already heads the message; its evidence needs no second heading.
    if (finding.id !== verdict) {
      lines.push(`*${slackTimes(escapeMrkdwn(finding.summary), nowMs)}* (${findingLabel(finding.id)})`);
      items.push(shown);
    }
    for (const item of finding.evidence) {
      if (shown >= maxItems) break;
      if (seen.has(item.detail)) continue;
      seen.add(item.detail);
      shown += 1;
      lines.push(`• ${slackTimes(escapeOutside(item.detail), nowMs)} _(${SOURCE_LABELS[item.source]})_`);
      items.push(shown);
    }
  }
  return { lines, items };
}

function sourcesText(report: Report): string | undefined {
  const missing = SOURCE_NAMES.filter((name) => report.sources[name].status === "unavailable").map((name) => {
    const error = report.sources[name].error;
    return `${SOURCE_LABELS[name]}: ${escapeOutside(error ?? "did not answer")}`;
  });
  return missing.length === 0 ? undefined : `*Could not read:* ${missing.join("; ")}`;
}

export const SHOW_EVIDENCE_ACTION = "evidence_show_all";

function showAllButton(ref: string): KnownBlock {
  return {
    type: "actions",
    elements: [
      {
        type: "button",
        action_id: SHOW_EVIDENCE_ACTION,
        text: { type: "plain_text", text: "Show all evidence" },
        value: ref,
      },
    ],
  };
}

/** Every finding and every piece of evidence, for the modal behind "Show all evidence". */
export function renderEvidenceModal(report: Report): ModalView {
  const nowMs = now(report);
  const lines: string[] = [];
  for (const finding of report.findings) {
    lines.push(`*${slackTimes(escapeMrkdwn(finding.summary), nowMs)}* (${findingLabel(finding.id)})`);
    for (const item of finding.evidence) {
      lines.push(`• ${slackTimes(escapeOutside(item.detail), nowMs)} _(${SOURCE_LABELS[item.source]})_`);
    }
  }
  // A modal holds 100 blocks; the last one says how much did not fit, if anything.
  const packed = packLines(lines, { maxSections: 98 });
  const blocks: KnownBlock[] = [
    context(`${escapeMrkdwn(report.table)} · report ${slackWhen(nowMs)}`),
    ...packed.texts.map((text) => section(text)),
  ];
  if (packed.used < lines.length)
    blocks.push(context(`… and ${formatCount(lines.length - packed.used)} more lines`));
  return {
    type: "modal",
    title: { type: "plain_text", text: "All evidence" },
    close: { type: "plain_text", text: "Close" },
    blocks,
  };
}

export function renderDiagnosis(report: Report, opts: DiagnosisOptions = {}): SlackMessage {
  const maxEvidence = Math.max(0, opts.maxEvidence ?? DEFAULT_MAX_EVIDENCE);
  const head: KnownBlock[] = [section(verdictText(report)), section(nextStepText(report))];
  const tail: KnownBlock[] = [];
  const sources = sourcesText(report);
  if (sources !== undefined) tail.push(section(sources));
  const notConfigured = SOURCE_NAMES.filter((n) => report.sources[n].status === "not-configured");
  const footer = [`report ${slackWhen(now(report))}`];
  if (notConfigured.length > 0)
    footer.push(`not configured: ${notConfigured.map((n) => SOURCE_LABELS[n]).join(", ")}`);
  tail.push(context(footer.join(" · ")));

  const total = new Set(report.findings.flatMap((f) => f.evidence.map((e) => e.detail))).size;
  const { lines, items } = evidenceLines(report.findings, report.verdict, maxEvidence, now(report));
  // One block is kept back for the "… and N more" line.
  const room = LIMITS.messageBlocks - head.length - tail.length - 1;
  const packed = packLines(lines, { maxSections: Math.max(1, room) });
  const shown = packed.used === 0 ? 0 : (items[packed.used - 1] ?? 0);
  const evidence: KnownBlock[] = packed.texts.map((text, i) =>
    section(i === 0 ? `*Evidence*\n${text}` : text),
  );
  if (total === 0) evidence.push(section("*Evidence:* none was found."));
  if (total > shown) {
    evidence.push(context(`… and ${formatCount(total - shown)} more`));
    if (opts.evidenceRef !== undefined) evidence.push(showAllButton(opts.evidenceRef));
  }

  const blocks = capBlocks([...head, ...evidence, ...tail]);
  const text = `${escapeMrkdwn(report.table)}: ${VERDICT_LABELS[report.verdict]}${
    report.nextStep === null ? "" : `; next step: ${STEP_TITLES[report.nextStep.id]}`
  }`;
  return { text, blocks };
}
