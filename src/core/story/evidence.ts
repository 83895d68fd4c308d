// What the newest report says about the failing writer: who it is, its last good commit, the
// verdict and the cause that belongs to it, and which sources did not answer (refused the bot's
// own credential or stayed silent). Facts only; the renderers own the words.

import { ROOT_CAUSE_IDS, SOURCE_NAMES } from "../ids.js";
import type { RemediationRecord } from "../remediation/record.js";
import type { EvidenceItem, Finding, Report } from "../report/schema.js";
import { unansweredSources } from "../report/unanswered.js";
import type { IncidentStory, StoryWriter, UnseenSource } from "./model.js";

const RACE_VERDICTS = new Set<string>(["commit-conflict", "commit-failing", "validation-conflict"]);

/**
 * The cause the card names: a root-cause finding (who won the race), and only under a verdict that
 * is a race. A stopped coordinator or a checkpoint problem has its cause in the verdict itself.
 */
export function causeFinding(report: Report | undefined): Finding | undefined {
  if (!report || !RACE_VERDICTS.has(report.verdict)) return undefined;
  return report.findings.find((f) => (ROOT_CAUSE_IDS as readonly string[]).includes(f.id));
}

/** A 401 or 403 to the bot's own read: its credential, never the writer's failure. */
const refusesBot = (status: number | undefined) => status === 401 || status === 403;

/** The sources the report could not read, each marked when it refused the bot's credential. */
export function unseenOf(report: Report | undefined): UnseenSource[] {
  if (!report) return [];
  return unansweredSources(report.sources).map((u) =>
    u.source === undefined && refusesBot(report.sources[u.kind].httpStatus) ? { ...u, refusedBot: true } : u,
  );
}

/** The writer the story is about: the report's, or the one the walk watches. */
export function writerOf(
  report: Report | undefined,
  walk: RemediationRecord | undefined,
): StoryWriter | undefined {
  const w = report?.writer ?? walk?.writer;
  if (!w) return undefined;
  return {
    kind: w.kind === "connect" || w.kind === "connector" ? "connect" : "flink",
    id: w.id,
    ...(w.name ? { name: w.name } : {}),
    ...(w.cluster ? { cluster: w.cluster } : {}),
  };
}

const msOf = (value: unknown): number | undefined => {
  if (typeof value !== "string") return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
};

/** The first of the items' `key` that reads as a time. */
const firstMs = (items: readonly EvidenceItem[], key: string): number | undefined =>
  items.map((item) => msOf(item.data[key])).find((ms) => ms !== undefined);

/** Every piece of evidence the report holds, in report order. */
const allEvidence = (report: Report | undefined): EvidenceItem[] =>
  report?.findings.flatMap((f) => f.evidence) ?? [];

/**
 * The failing writer's newest snapshot time, whichever finding carries it (marked
 * writerLastCommitAt); older reports only had committedAt on the verdict's own evidence.
 */
export function lastGoodCommitMs(report: Report | undefined): number | undefined {
  if (!report) return undefined;
  const verdict = report.findings.find((f) => f.id === report.verdict);
  return (
    msOf(report.writer?.lastCommitAt) ??
    firstMs(allEvidence(report), "writerLastCommitAt") ??
    firstMs(verdict?.evidence ?? [], "committedAt")
  );
}

/**
 * The writer's commit cadence from the evidence on its newest snapshot: the interval it is expected
 * to commit at, unless that is the fallback guess, and what that snapshot added.
 */
export function cadenceOf(report: Report | undefined): IncidentStory["cadence"] {
  const data = allEvidence(report).find((i) => i.data.writerLastCommitAt !== undefined)?.data;
  const interval = data?.expectedIntervalMs;
  if (typeof interval !== "number" || interval <= 0 || data?.intervalSource === "fallback") return undefined;
  const records = data?.addedRecords;
  return { intervalMs: interval, ...(typeof records === "number" ? { recordsPerCommit: records } : {}) };
}

export function firstFailureMs(report: Report | undefined): number | undefined {
  return msOf(report?.writer?.failedAt);
}

/**
 * Whether what the verdict rests on was seen: false when every piece of its evidence comes from a
 * source that did not answer (the catalog refused the bot, and nothing else shows the writer).
 */
export function verdictSeen(report: Report, unseen: readonly UnseenSource[]): boolean {
  const silent = new Set(unseen.filter((u) => u.source === undefined).map((u) => u.kind));
  if (silent.size === 0) return true;
  const verdict = report.findings.find((f) => f.id === report.verdict);
  if (!verdict) return true;
  return verdict.evidence.some((item) => !silent.has(item.source) && SOURCE_NAMES.includes(item.source));
}
