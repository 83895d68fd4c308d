// The postmortem as Markdown (CommonMark with GFM tables): the same text for the Slack canvas, the
// file shared in the thread when canvases are not allowed, and `iceberg-bot postmortem` on disk.
// A document read later: times are absolute UTC ("2026-11-30 20:30 UTC"), never "5 min ago" or a
// raw ISO stamp. Every word from outside (table, job, summaries, evidence, checklists, remarks) goes
// through mdText, so none can become a link, a heading, a quote or a broken table cell.

import type { Postmortem, PostmortemEvent, PostmortemPicture } from "../../core/history/postmortem.js";
import { FINDING_IDS, type FindingId, type StepId } from "../../core/ids.js";
import { groupDigits, plural } from "../../core/plural.js";
import type { Change } from "../../core/report/schema.js";
import type { StoryWriter } from "../../core/story/model.js";
import { type OpenItem, pendingItems } from "../../core/verification/open-items.js";
import { utcDateTime } from "../../core/words/clock.js";
import { formatDuration } from "../../core/words/duration.js";
import { findingWords, stepWords } from "../../core/words/labels.js";
import { recoveredAfterWords } from "../../core/words/recovery.js";
import { mdCode, mdCodeBlock, mdText } from "./markdown-safety.js";
import { documentTimes } from "./times.js";

export interface PostmortemMarkdownOptions {
  /** A time as the reader sees it (default "2026-11-30 20:30 UTC"). */
  when?: (ms: number) => string;
  /** Who did something: a user id as the medium shows people (default the id itself). */
  who?: (id: string) => string;
  /** Where a picture is (default its file name beside the markdown). */
  pictureUrl?: (picture: PostmortemPicture) => string | undefined;
}

const VERDICT_WORDS: Record<string, string> = { unknown: "an unknown failure" };

function stepTitle(id: StepId): string {
  return stepWords(id) ?? id;
}

function verdictLabel(verdict: string): string {
  return (FINDING_IDS as readonly string[]).includes(verdict)
    ? findingWords(verdict as FindingId)
    : (VERDICT_WORDS[verdict] ?? verdict);
}

/** Outside text in a document: absolute times, then made inert. */
function outside(text: string, max = 400): string {
  return mdText(documentTimes(text), max);
}

/** "Flink job events-ingest", "Kafka Connect connector events-sink", or "the writer". */
function writerWords(writer: StoryWriter | undefined, text: (s: string) => string = mdText): string {
  if (!writer) return "the writer";
  return writer.kind === "flink"
    ? `Flink job ${text(writer.name ?? writer.id)}`
    : `Kafka Connect connector ${text(writer.id)}`;
}

/** "1 item remains open", "2 items remain open", "Nothing remains open". */
function openWords(items: readonly OpenItem[]): string {
  const n = pendingItems(items).length;
  if (n === 0) return "Nothing remains open.";
  return n === 1 ? "1 item remains open." : `${n} items remain open.`;
}

function eventWords(e: PostmortemEvent, pm: Postmortem, who: (id: string) => string): string {
  switch (e.kind) {
    case "last-good-commit":
      return `Last good commit of ${writerWords(pm.writer)}`;
    case "first-failure":
      return `First failure of ${writerWords(pm.writer)} seen`;
    case "alert-fired":
      return "Alert fired; the incident opened";
    case "diagnosis":
      return `First diagnosis: ${mdText(verdictLabel(e.verdict))}`;
    case "claimed":
      return `${who(e.by)} took it on`;
    case "proposal":
      return `Proposed: ${stepTitle(e.stepId)}`;
    case "approval":
      return `Approved by ${who(e.by)}: ${stepTitle(e.stepId)}`;
    case "skipped":
      return `Skipped${e.by ? ` by ${who(e.by)}` : ""}: ${stepTitle(e.stepId)}`;
    case "change":
      return e.byHand
        ? `Change made by hand${e.by ? ` (marked done by ${who(e.by)})` : ""}: ${stepTitle(e.stepId)}`
        : `Change applied by the bot: ${stepTitle(e.stepId)}`;
    case "did-not-help":
      return `No recovery after: ${stepTitle(e.stepId)}`;
    case "recovery":
      return e.flowing
        ? "The writer's next commit (it was committing all along)"
        : "Recovered: the writer's commits resumed";
    case "remark":
      return `${who(e.by)} wrote: ${outside(e.text, 300)}`;
    case "item-done":
      return `Marked done by ${who(e.by)}: ${outside(e.text, 200)}`;
  }
}

function changeLines(change: Change | undefined): string[] {
  if (!change) return [];
  switch (change.kind) {
    case "table-properties":
    case "connector-config":
      return [
        mdCodeBlock(
          change.changes
            .map((c) => `${c.key}: ${c.current ?? "unset"} → ${c.proposed ?? "unset"}`)
            .join("\n"),
        ),
      ];
    case "connector-restart":
      return [
        `Restarted connector ${mdCode(change.connector)}${change.includeTasks ? " and its tasks" : ""}.`,
      ];
    case "manual":
    case "read-only-check":
      return [
        ...(change.statement ? [mdCodeBlock(change.statement, change.language ?? "")] : []),
        ...change.checklist.map((line) => `- ${outside(line)}`),
      ];
  }
}

function orNot(ms: number | undefined): string {
  return ms === undefined ? "not known" : formatDuration(ms);
}

/**
 * The one-paragraph summary. Its only words from outside are the table name, set as code by
 * `code` (Markdown's by default); the rest are the bot's own labels and durations.
 */
export function postmortemSummary(pm: Postmortem, code: (text: string) => string = mdCode): string {
  const what = pm.cause.triage ? findingWords(pm.cause.triage.id) : verdictLabel(pm.cause.verdict);
  const cause = pm.cause.rootCause ? `, caused by ${findingWords(pm.cause.rootCause.id)}` : "";
  const parts = [
    pm.flowing
      ? `The writer of ${code(pm.table)} kept committing: ${what}${cause}.`
      : `The writer of ${code(pm.table)} stopped committing: ${what}${cause}.`,
  ];
  if (pm.impact.noDataMs !== undefined)
    parts.push(
      pm.impact.recovered
        ? `No data landed for ${formatDuration(pm.impact.noDataMs)}.`
        : `No data landed for ${formatDuration(pm.impact.noDataMs)} before the incident closed.`,
    );
  if (pm.durations.toDiagnoseMs !== undefined)
    parts.push(`The bot diagnosed it ${formatDuration(pm.durations.toDiagnoseMs)} after the alert.`);
  if (pm.notHelped.length > 0) parts.push(`${pm.notHelped.map(stepTitle).join(", ")} did not help.`);
  if (pm.fix)
    parts.push(
      `After ${stepTitle(pm.fix.stepId)} the writer's commits resumed${pm.fix.recoveredAfterMs !== undefined ? ` ${recoveredAfterWords(pm.fix.recoveredAfterMs, pm.fix.byHand === true)}` : ""}.`,
    );
  else if (pm.flowing) parts.push("No step is credited: the writer was committing before it.");
  else if (pm.impact.recovered) parts.push("The writer's commits resumed with no step credited.");
  else
    parts.push(
      pm.state === "stopped"
        ? "The walk was stopped before a step fixed it."
        : "No step is recorded as the fix.",
    );
  parts.push(openWords(pm.open));
  return parts.join(" ");
}

function impactLines(pm: Postmortem, when: (ms: number) => string): string[] {
  const { fromMs, toMs, noDataMs, recovered } = pm.impact;
  if (pm.flowing) return [`${writerWords(pm.writer)} kept committing throughout: no data was held back.`];
  if (fromMs === undefined || toMs === undefined || noDataMs === undefined)
    return [
      `The last good commit of ${writerWords(pm.writer)} is not known; the incident was open for ${formatDuration(pm.closedAtMs - pm.openedAtMs)}.`,
    ];
  const to = recovered
    ? `${when(toMs)} (its first commit again)`
    : `${when(toMs)} (when the incident closed, still not committing)`;
  return [
    `No data of ${writerWords(pm.writer)} landed from ${when(fromMs)} to ${to}: ${formatDuration(noDataMs)}.`,
    missedLine(pm.impact.missed),
  ];
}

/** Commits (and records) missed, where the writer's cadence is known; "unknown" where it is not. */
function missedLine(missed: Postmortem["impact"]["missed"]): string {
  if (!missed)
    return "Commits missed: unknown (the evidence does not say how often the writer commits). Records missed: unknown.";
  const commits = plural(missed.commits, "commit");
  const records =
    missed.records === undefined
      ? "Records missed: unknown (the snapshots do not say how many records a commit adds)."
      : `Records missed: about ${groupDigits(missed.records)} (as many per commit as its last commit added).`;
  return `Commits missed: ${commits} (it commits every ${formatDuration(missed.everyMs)}). ${missed.commits === 0 ? "" : records}`.trim();
}

function itemLine(item: OpenItem, who: (id: string) => string, when: (ms: number) => string): string[] {
  const label = item.kind === "risk" ? "Risk" : "To do";
  const done =
    item.doneBy !== undefined
      ? ` Done by ${who(item.doneBy)}${item.doneAtMs !== undefined ? ` at ${when(item.doneAtMs)}` : ""}.`
      : "";
  const finding = item.findingId ? ` (${mdCode(item.findingId)})` : "";
  return [
    `- **${label}**${finding}: ${outside(item.text)}${done}`,
    ...(item.statement && item.doneBy === undefined ? ["", mdCodeBlock(item.statement, "sql")] : []),
  ];
}

export function renderPostmortemMarkdown(pm: Postmortem, options: PostmortemMarkdownOptions = {}): string {
  const when = options.when ?? utcDateTime;
  const who = options.who ?? ((id: string) => (id === "bot" ? "iceberg-bot" : mdText(id)));
  const url = options.pictureUrl ?? ((p: PostmortemPicture) => encodeURI(p.name));
  const out: string[] = [];
  out.push(`# Postmortem: ${mdText(pm.table)} (${mdText(pm.incidentId)})`, "");
  out.push("## Summary", "", postmortemSummary(pm), "");
  if (pm.owner)
    out.push(
      `Owner: ${who(pm.owner.user)} (${pm.owner.how === "claimed" ? "took it on" : "first to act"}).`,
      "",
    );
  out.push("## Impact", "", ...impactLines(pm, when), "");
  out.push("## Timeline", "", "| Time | What happened |", "| --- | --- |");
  for (const e of pm.timeline) out.push(`| ${when(e.atMs)} | ${eventWords(e, pm, who)} |`);
  out.push("");
  out.push(
    "## Durations",
    "",
    `- Time to detect (first failure to the alert): ${orNot(pm.durations.toDetectMs)}`,
    `- Time to diagnose (alert to first diagnosis): ${orNot(pm.durations.toDiagnoseMs)}`,
    `- Time to decide (first diagnosis to the fix approved): ${orNot(pm.durations.toDecideMs)}`,
    `- Time to recover (the writer's last good commit to its first commit again): ${pm.durations.toRecoverMs === undefined ? "not reached" : formatDuration(pm.durations.toRecoverMs)}`,
    "",
  );
  out.push("## Cause", "");
  for (const f of [pm.cause.triage, pm.cause.rootCause])
    if (f) out.push(`- **${mdText(findingWords(f.id))}** (${mdCode(f.id)}): ${outside(f.summary)}`);
  if (!pm.cause.triage && !pm.cause.rootCause)
    out.push(`- Verdict: ${mdText(verdictLabel(pm.cause.verdict))}`);
  if (pm.cause.evidence.length > 0) {
    out.push("", "Evidence:", "");
    for (const line of pm.cause.evidence) out.push(`- ${outside(line)}`);
  }
  out.push("");
  out.push("## Fix", "");
  if (pm.fix) {
    out.push(`**${stepTitle(pm.fix.stepId)}** (${mdCode(pm.fix.stepId)})`, "", ...changeLines(pm.fix.change));
  } else out.push("No step fixed it.");
  out.push("");
  if (pm.notHelped.length > 0) {
    out.push("## What did not help", "");
    for (const id of pm.notHelped) out.push(`- ${stepTitle(id)} (${mdCode(id)})`);
    out.push("");
  }
  out.push("## What remains open", "", openWords(pm.open), "");
  for (const item of pm.open) out.push(...itemLine(item, who, when));
  out.push("");
  if (pm.pictures.length > 0) {
    out.push("## Pictures", "");
    for (const p of pm.pictures) {
      const where = url(p);
      out.push(
        where
          ? `![${mdText(p.altText || p.title)}](${where})`
          : `- ${mdText(p.title)} (shared in the thread)`,
        "",
      );
    }
  }
  return `${out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()}\n`;
}
