// The diagnosis message fits one phone screen: the verdict, the one next step, at most three
// evidence lines in plain words (whole ones: fewer lines rather than a fact cut in half), and what
// could not be read. Ids, stack traces and the rest sit
// behind "Show all evidence"; the change itself (the diff) is shown once, in the proposal.

import { groupDigits } from "../../../core/plural.js";
import type { Finding, Report } from "../../../core/report/schema.js";
import { unansweredSources } from "../../../core/report/unanswered.js";
import { causeFinding as cardCause } from "../../../core/story/evidence.js";
import {
  findingWords,
  SOURCE_WORDS,
  sourceSaid,
  sourceWords,
  stepWords,
} from "../../../core/words/labels.js";
import type { DiagnosisOptions } from "../../../services/view-models.js";
import { unconfiguredSources } from "../../render/describe.js";
import { reportMs, slackTimes, slackWhen } from "../../render/times.js";
import type { KnownBlock, ModalView, SlackMessage } from "./block-kit.js";
import { actions, button, capBlocks, context, modal, packedSections, section } from "./blocks.js";
import { escapeMrkdwn, escapeOutside } from "./limits.js";

const DEFAULT_MAX_EVIDENCE = 3;
/**
 * Characters of evidence the first screen holds, about three short lines. Lines are never cut:
 * as many whole lines as fit are shown, the rest are behind "Show all evidence".
 */
const EVIDENCE_CHARS = 320;

function verdictText(report: Report): string {
  const emoji = report.verdict === "healthy" ? ":white_check_mark:" : ":mag:";
  const label = findingWords(report.verdict);
  const finding = report.findings.find((f) => f.id === report.verdict);
  const summary =
    finding === undefined ? "" : `\n${slackTimes(escapeMrkdwn(finding.summary), reportMs(report))}`;
  const catalog = report.sources.catalog;
  const refused = catalog.httpStatus === 401 || catalog.httpStatus === 403;
  const unreachable =
    catalog.status === "unavailable"
      ? `:warning: *The Iceberg REST catalog ${refused ? "refused the bot's credential" : "was unreachable"}* (${escapeMrkdwn(catalog.error ?? "no answer")}); this verdict rests on what the other sources show.\n`
      : "";
  const note = report.catalogNote ? `\n_${escapeMrkdwn(report.catalogNote)}_` : "";
  return `${unreachable}${emoji} *${escapeMrkdwn(report.table)}: ${label}*${summary}${note}`;
}

function nextStepText(report: Report): string {
  const step = report.nextStep;
  if (step === null) {
    return report.verdict === "healthy"
      ? `*Next step:* none; ${healthyWhy(report)}.`
      : `*Next step:* none chosen; ${escapeMrkdwn(report.noStepReason ?? "no playbook step matches these findings yet; the evidence below is what we know.")}`;
  }
  const how =
    step.change.kind === "read-only-check"
      ? "the bot checks this itself; nothing changes"
      : step.automatic
        ? "proposed below"
        : "a person makes this change";
  // The proposal below shows what changes; here the step's name and who acts are enough.
  return `*Next step: ${stepWords(step.id)}* (${how})`;
}

/** Why nothing needs doing: a quiet writer is quiet as expected, not "committing normally". */
function healthyWhy(report: Report): string {
  if (report.findings.some((f) => f.id === "writer-idle")) return "the writer is quiet as expected";
  const healthy = report.findings.find((f) => f.id === "healthy");
  const noWriter = healthy?.evidence.every((e) => e.source === "catalog") ?? false;
  return noWriter ? "nothing is failing" : "the writer is committing normally";
}

/**
 * At most `max` whole lines in words: what the other findings say (the cause first, as the report
 * orders them), then the verdict's own evidence; code (exception lines, stack traces) stays in the
 * modal. A line that does not fit what is left of the screen is left for the modal, never cut.
 */
function plainLines(report: Report, max: number, nowMs: number): string[] {
  const candidates: string[] = [];
  // The root card names the cause right above this message: said once.
  const cause = cardCause(report);
  // A healthy verdict already says why the writer is quiet and when it commits next.
  const said = (f: Finding) => f === cause || (report.verdict === "healthy" && f.id === "writer-idle");
  for (const f of report.findings) if (f.id !== report.verdict && !said(f)) candidates.push(f.summary);
  const verdict = report.findings.find((f) => f.id === report.verdict);
  for (const item of verdict?.evidence ?? []) if (!item.detail.includes("```")) candidates.push(item.detail);
  const seen = new Set<string>();
  const lines: string[] = [];
  let room = EVIDENCE_CHARS;
  for (const text of candidates) {
    if (lines.length >= max || seen.has(text) || text.length > room) continue;
    seen.add(text);
    room -= text.length;
    lines.push(`• ${slackTimes(escapeMrkdwn(text), nowMs)}`);
  }
  return lines;
}

function sourcesText(report: Report): string | undefined {
  const missing = unansweredSources(report.sources).map((u) =>
    escapeOutside(sourceSaid(sourceWords(u.kind, u.source), u.reason)),
  );
  return missing.length === 0 ? undefined : `*Could not read:* ${missing.join("; ")}`;
}

export const SHOW_EVIDENCE_ACTION = "evidence_show_all";

/** Every finding and every piece of evidence, for the modal behind "Show all evidence". */
export function renderEvidenceModal(report: Report): ModalView {
  const nowMs = reportMs(report);
  const lines: string[] = [];
  for (const finding of report.findings) {
    lines.push(`*${slackTimes(escapeMrkdwn(finding.summary), nowMs)}* (${findingWords(finding.id)})`);
    for (const item of finding.evidence) {
      lines.push(`• ${slackTimes(escapeOutside(item.detail), nowMs)} _(${SOURCE_WORDS[item.source]})_`);
    }
  }
  // A modal holds 100 blocks; the last one says how much did not fit, if anything.
  const blocks: KnownBlock[] = [
    context(`${escapeMrkdwn(report.table)} · report ${slackWhen(nowMs)}`),
    ...packedSections(lines, { maxSections: 98, more: "more lines" }),
  ];
  return modal("All evidence", blocks);
}

export function renderDiagnosis(report: Report, opts: DiagnosisOptions = {}): SlackMessage {
  const maxEvidence = Math.max(0, opts.maxEvidence ?? DEFAULT_MAX_EVIDENCE);
  const head: KnownBlock[] = [section(verdictText(report)), section(nextStepText(report))];
  const tail: KnownBlock[] = [];
  const sources = sourcesText(report);
  if (sources !== undefined) tail.push(section(sources));
  const notConfigured = unconfiguredSources(report);
  const footer = [`report ${slackWhen(reportMs(report))}`];
  if (notConfigured.length > 0) footer.push(`not configured: ${notConfigured.join(", ")}`);
  tail.push(context(footer.join(" · ")));

  const total = new Set(report.findings.flatMap((f) => f.evidence.map((e) => e.detail))).size;
  // The card's cause counts as one of the lines: it is right above.
  const lines = plainLines(report, Math.max(0, maxEvidence - (cardCause(report) ? 1 : 0)), reportMs(report));
  const evidence: KnownBlock[] = [];
  if (lines.length > 0) evidence.push(section(lines.join("\n")));
  if (total === 0) evidence.push(section("*Evidence:* none was found."));
  // The full evidence (ids, exception lines, every finding) is one click away, never in the way.
  if (total > 0 && opts.evidenceRef !== undefined)
    evidence.push(actions([button("Show all evidence", SHOW_EVIDENCE_ACTION, opts.evidenceRef)]));
  else if (total > lines.length)
    evidence.push(context(`${groupDigits(total)} pieces of evidence in the report`));

  const blocks = capBlocks([...head, ...evidence, ...tail]);
  const text = `${escapeMrkdwn(report.table)}: ${findingWords(report.verdict)}${
    report.nextStep === null ? "" : `; next step: ${stepWords(report.nextStep.id)}`
  }`;
  return { text, blocks };
}
