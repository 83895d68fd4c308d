// Words shared by the text and markdown renderers: what each id means to a person, how a change
// reads, and how sources are named. Ids stay visible next to the words because people cite them.

import { SOURCE_NAMES } from "../../core/ids.js";
import { shownValue } from "../../core/properties.js";
import type { Change, PropertyChange, Report } from "../../core/report/schema.js";
import { unansweredSources as unansweredOf } from "../../core/report/unanswered.js";
import { findingWords, SOURCE_WORDS, sourceWords } from "../../core/words/labels.js";
import { oneLine } from "./text-safety.js";

/** A commit timeline picture written beside a report. */
export interface ChartFile {
  path: string;
  width: number;
  height: number;
  /** What the picture shows, in one sentence (alt text). */
  altText: string;
}

/** A property value as a person reads it; null means Iceberg's (or Connect's) default applies. */
export function formatPropertyValue(value: string | null): string {
  return value === null ? "unset" : oneLine(value, 120);
}

/** `commit.retry.num-retries: 4 → 10`, or `… → (removed)` when the proposal unsets the key. */
function formatPropertyChange(change: PropertyChange): string {
  const proposed = change.proposed === null ? "(removed)" : formatPropertyValue(change.proposed);
  return `${oneLine(change.key, 120)}: ${oneLine(shownValue(change.key, change.current), 120)} → ${proposed}`;
}

export interface DescribedChange {
  /** What the change touches, one line. */
  heading: string;
  /** One line per property, or the restart call. */
  lines: string[];
  /** A statement to copy, shown as a code block. */
  statement?: { text: string; language: string };
  checklist: string[];
}

/** The Kafka Connect REST call a restart makes, as a person would send it. */
export function restartCall(change: Extract<Change, { kind: "connector-restart" }>): string {
  const query = `includeTasks=${change.includeTasks}&onlyFailed=${change.onlyFailed}`;
  return `POST /connectors/${encodeURIComponent(change.connector)}/restart?${query}`;
}

export function describeChange(change: Change): DescribedChange {
  switch (change.kind) {
    case "table-properties":
    case "connector-config":
      return {
        heading:
          change.kind === "table-properties"
            ? `Table properties of ${oneLine(change.table, 200)}:`
            : `Config of connector ${oneLine(change.connector, 200)}:`,
        lines: change.changes.map(formatPropertyChange),
        checklist: [],
      };
    case "connector-restart": {
      const which = change.includeTasks
        ? change.onlyFailed
          ? "and its failed tasks"
          : "and all its tasks"
        : "only";
      return {
        heading: `Restart connector ${oneLine(change.connector, 200)} ${which}:`,
        lines: [restartCall(change)],
        checklist: [],
      };
    }
    case "read-only-check":
    case "manual":
      return {
        heading:
          change.kind === "read-only-check"
            ? "The bot checks this itself (nothing changes); to look too:"
            : change.statement
              ? "Run this yourself:"
              : "Do this by hand:",
        lines: [],
        statement: change.statement
          ? { text: change.statement, language: change.language ?? "text" }
          : undefined,
        checklist: change.checklist.map((item) => oneLine(item, 400)),
      };
  }
}

/** The verdict finding's own summary when the report has one, else the verdict's title. */
export function verdictSummary(report: Report): string | undefined {
  const finding = report.findings.find((f) => f.id === report.verdict);
  if (!finding) return undefined;
  // Summaries often open with the verdict's own name; the line already shows it once.
  const summary = oneLine(finding.summary);
  const title = findingWords(report.verdict);
  const prefix = [`${title}:`, `${report.verdict}:`].find((p) =>
    summary.toLowerCase().startsWith(p.toLowerCase()),
  );
  return prefix ? summary.slice(prefix.length).trim() : summary;
}

/** Splits a list into the part to show and how many were left out. */
export function limitList<T>(items: readonly T[], max: number): { shown: T[]; hidden: number } {
  if (items.length <= max) return { shown: [...items], hidden: 0 };
  return { shown: items.slice(0, max), hidden: items.length - max };
}

export function moreLine(hidden: number): string {
  return `… and ${hidden} more`;
}

/**
 * Sources that were configured but did not answer, with the reason as recorded: a whole kind, or
 * one named source of it ("Flink REST (east)") while the others answered.
 */
export function unansweredSources(report: Report): { label: string; reason: string }[] {
  return unansweredOf(report.sources).map((u) => ({
    label: sourceWords(u.kind, u.source),
    reason: oneLine(u.reason, 200),
  }));
}

export function unconfiguredSources(report: Report): string[] {
  return SOURCE_NAMES.filter((name) => report.sources[name].status === "not-configured").map(
    (name) => SOURCE_WORDS[name],
  );
}

/** "catalog 12 ms · flink 40 ms" for the sources that answered. */
export function answeredSummary(report: Report): string {
  return SOURCE_NAMES.filter((name) => report.sources[name].status === "ok")
    .map((name) => {
      const latency = report.sources[name].latencyMs;
      return latency === undefined ? name : `${name} ${Math.round(latency)} ms`;
    })
    .join(" · ");
}

/** The line that opens a report whose catalog did not answer: everything else rests on the rest. */
export function catalogUnreachable(report: Report): string | undefined {
  const catalog = report.sources.catalog;
  if (catalog.status !== "unavailable") return undefined;
  if (catalog.httpStatus === 401 || catalog.httpStatus === 403)
    return `The Iceberg REST catalog refused the bot's credential (${catalog.error ?? "no answer"}): the bot's access, not the writer's; this verdict rests on what the other sources show.`;
  return `The Iceberg REST catalog was unreachable (${catalog.error ?? "no answer"}); this verdict rests on what the other sources show.`;
}
