// The postmortem as Markdown (CommonMark with GFM tables): the same text for the Slack canvas, the
// file shared in the thread when canvases are not allowed, and `iceberg-bot postmortem` on disk.
// Upstream words (summaries, evidence, exception messages) are escaped so they can never become
// links, headings or broken table cells; control characters never pass.

import type { Postmortem, PostmortemEvent, PostmortemPicture } from "../../core/history/postmortem.js";
import { FINDING_IDS, type FindingId, type StepId } from "../../core/ids.js";
import type { Change } from "../../core/report/schema.js";
import { formatDuration } from "../../core/words/duration.js";
import { findingWords, stepWords } from "../../core/words/labels.js";
import { mdCode, mdCodeBlock, mdText } from "./markdown-safety.js";
import { utcStamp } from "./times.js";

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

function eventWords(e: PostmortemEvent, who: (id: string) => string): string {
  switch (e.kind) {
    case "alert-fired":
      return "Alert fired; the incident opened";
    case "diagnosis":
      return `First diagnosis: ${mdText(verdictLabel(e.verdict))}`;
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
      return "Recovered: the writer's commits resumed";
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
        ...change.checklist.map((line) => `- ${mdText(line, 400)}`),
      ];
  }
}

/** ISO stamps in evidence lines read as the timeline's times do. */
function utcStamps(text: string): string {
  return text.replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z\b/g, (stamp) =>
    utcStamp(Date.parse(stamp)),
  );
}

function duration(ms: number | undefined): string {
  return ms === undefined ? "not reached" : formatDuration(ms);
}

/**
 * The one-paragraph summary. Its only words from outside are the table name, set as code by
 * `code` (Markdown's by default); the rest are the bot's own labels and durations.
 */
export function postmortemSummary(pm: Postmortem, code: (text: string) => string = mdCode): string {
  const what = pm.cause.triage ? findingWords(pm.cause.triage.id) : verdictLabel(pm.cause.verdict);
  const cause = pm.cause.rootCause ? `, caused by ${findingWords(pm.cause.rootCause.id)}` : "";
  const parts = [`The writer of ${code(pm.table)} stopped committing: ${what}${cause}.`];
  if (pm.durations.toDiagnoseMs !== undefined)
    parts.push(`The bot diagnosed it ${formatDuration(pm.durations.toDiagnoseMs)} after the alert.`);
  if (pm.notHelped.length > 0) parts.push(`${pm.notHelped.map(stepTitle).join(", ")} did not help.`);
  if (pm.fix) {
    const after =
      pm.fix.recoveredAfterMs !== undefined
        ? ` ${formatDuration(pm.fix.recoveredAfterMs)} after the change`
        : "";
    parts.push(
      `After ${stepTitle(pm.fix.stepId)} the writer's commits resumed${after}, ${duration(pm.durations.toRecoverMs)} after the alert.`,
    );
  } else
    parts.push(
      pm.state === "stopped"
        ? "The walk was stopped before a step fixed it."
        : "No step is recorded as the fix.",
    );
  parts.push(pm.open.length > 0 ? `${pm.open.length} item(s) remain open.` : "Nothing remains open.");
  return parts.join(" ");
}

export function renderPostmortemMarkdown(pm: Postmortem, options: PostmortemMarkdownOptions = {}): string {
  const when = options.when ?? utcStamp;
  const who = options.who ?? ((id: string) => (id === "bot" ? "iceberg-bot" : mdText(id)));
  const url = options.pictureUrl ?? ((p: PostmortemPicture) => encodeURI(p.name));
  const out: string[] = [];
  out.push(`# Postmortem: ${mdText(pm.table)} (${mdText(pm.incidentId)})`, "");
  out.push("## Summary", "", postmortemSummary(pm), "");
  out.push("## Timeline", "", "| Time | What happened |", "| --- | --- |");
  for (const e of pm.timeline) out.push(`| ${when(e.atMs)} | ${eventWords(e, who)} |`);
  out.push("");
  out.push(
    "## Durations",
    "",
    `- Time to diagnose (alert to first diagnosis): ${duration(pm.durations.toDiagnoseMs)}`,
    `- Time to decide (first diagnosis to the fix approved): ${duration(pm.durations.toDecideMs)}`,
    `- Time to recover (alert to the writer's first commit): ${duration(pm.durations.toRecoverMs)}`,
    "",
  );
  out.push("## Cause", "");
  if (pm.cause.triage)
    out.push(
      `- **${mdText(findingWords(pm.cause.triage.id))}** (${mdCode(pm.cause.triage.id)}): ${mdText(pm.cause.triage.summary, 400)}`,
    );
  if (pm.cause.rootCause)
    out.push(
      `- **${mdText(findingWords(pm.cause.rootCause.id))}** (${mdCode(pm.cause.rootCause.id)}): ${mdText(pm.cause.rootCause.summary, 400)}`,
    );
  if (!pm.cause.triage && !pm.cause.rootCause) out.push(`- Verdict: ${mdText(pm.cause.verdict)}`);
  if (pm.cause.exception) out.push(`- Exception: ${mdCode(pm.cause.exception, 400)}`);
  if (pm.cause.evidence.length > 0) {
    out.push("", "Evidence:", "");
    for (const line of pm.cause.evidence) out.push(`- ${mdText(utcStamps(line), 400)}`);
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
  out.push("## What remains open", "");
  if (pm.open.length === 0) out.push("Nothing.");
  for (const item of pm.open) out.push(`- ${mdText(item, 400)}`);
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
