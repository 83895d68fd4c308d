// The sweep digest: one message with the worst tables (failing checks, the one-line fix, an Audit
// button and, when the diagnosis has a next step, "Start the fix"), the tables already in an
// incident linked to their thread, what changed since the last sweep, and counts by check.
// Also the short summary of the latest sweep shown on App Home.

import { AUDIT_CHECK_IDS } from "../../../core/ids.js";
import { groupDigits } from "../../../core/plural.js";
import { SKIP_REASON_TEXT } from "../../../core/sweep/budget.js";
import type { Digest } from "../../../core/sweep/digest.js";
import { failingChecks, type TableHealth } from "../../../core/sweep/health.js";
import { formatDuration } from "../../../core/words/duration.js";
import { slackWhen } from "../../render/times.js";
import type { KnownBlock, SlackMessage } from "./block-kit.js";
import { actions, button, context, divider, header, section } from "./blocks.js";
import { escapeCode, escapeMrkdwn, LIMITS, truncateText } from "./limits.js";
import { recurringBlocks } from "./recurring.js";
import { threadLink } from "./status-list.js";

export const SWEEP_ACTIONS = { audit: "sweep_audit", fix: "sweep_fix" } as const;

/** A button's value: the table (the digest's channel and ts come with the click). */
export function encodeSweepValue(table: string, sweepId: string): string {
  return JSON.stringify({ t: table, s: sweepId }).slice(0, LIMITS.buttonValue);
}

export function decodeSweepValue(raw: string | undefined): { table: string; sweepId: string } | undefined {
  try {
    const parsed = JSON.parse(raw ?? "") as { t?: unknown; s?: unknown };
    if (typeof parsed.t !== "string" || typeof parsed.s !== "string") return undefined;
    return { table: parsed.t, sweepId: parsed.s };
  } catch {
    return undefined;
  }
}

/** "12 tables, 3 with failing checks, 1 failing now": the sweep's, or one catalog's. */
function countsWords(c: Pick<Digest, "tables" | "failingTables" | "unhealthyNow">): string {
  return `${groupDigits(c.tables)} tables, ${groupDigits(c.failingTables)} with failing checks, ${groupDigits(c.unhealthyNow)} failing now`;
}

const headline = (d: Digest) => `Sweep: ${countsWords(d)}`;

function catalogLine(c: NonNullable<Digest["byCatalog"]>[number]): string {
  const errors = c.errors > 0 ? `, ${groupDigits(c.errors)} not read` : "";
  return `*Catalog \`${escapeCode(c.catalog)}\`:* ${countsWords(c)}${errors}`;
}

function checkList(t: TableHealth): string {
  const failing = failingChecks(t);
  const fails = failing.filter((c) => c.status === "fail").map((c) => `\`${c.id}\``);
  const warns = failing.filter((c) => c.status === "warn").map((c) => `\`${c.id}\``);
  const parts: string[] = [];
  if (fails.length > 0) parts.push(`fails ${fails.join(", ")}`);
  if (warns.length > 0) parts.push(`warns ${warns.join(", ")}`);
  if (t.verdict !== "healthy") parts.push(`failing now: \`${escapeCode(t.verdict)}\``);
  return parts.join(" · ") || "all checks pass";
}

function tableBlocks(t: TableHealth, rank: number, sweepId: string): KnownBlock[] {
  const lines = [`*${rank}. \`${escapeCode(t.table)}\`* · score ${t.score}/100`, checkList(t)];
  if (t.fix) lines.push(`fix: \`${escapeCode(t.fix)}\``);
  const value = encodeSweepValue(t.table, sweepId);
  const buttons = [button("Audit in thread", SWEEP_ACTIONS.audit, value)];
  if (t.nextStep) buttons.push(button("Start the fix", SWEEP_ACTIONS.fix, value, "primary"));
  return [section(lines.join("\n")), actions(buttons)];
}

function changesText(d: Digest): string {
  if (!d.changes)
    return "*Since the last sweep:* this is the first sweep; the next one will say what changed.";
  const c = d.changes;
  const list = (items: { table: string; check: string }[], total: number) => {
    const shown = items.slice(0, 5).map((x) => `\`${escapeCode(x.table)}\` ${x.check}`);
    return `${shown.join(", ")}${total > shown.length ? `, … and ${groupDigits(total - shown.length)} more` : ""}`;
  };
  const parts = [
    c.newFailuresTotal > 0
      ? `${groupDigits(c.newFailuresTotal)} new failing checks (${list(c.newFailures, c.newFailuresTotal)})`
      : "no new failing checks",
    c.fixedTotal > 0 ? `${groupDigits(c.fixedTotal)} fixed (${list(c.fixed, c.fixedTotal)})` : "none fixed",
  ];
  return `*Since the last sweep:* ${parts.join("; ")}.`;
}

function countsText(d: Digest): string {
  const items = AUDIT_CHECK_IDS.filter((id) => d.countsByCheck[id].fail + d.countsByCheck[id].warn > 0).map(
    (id) => {
      const c = d.countsByCheck[id];
      return `\`${id}\` ${groupDigits(c.fail)} fail${c.warn > 0 ? `, ${groupDigits(c.warn)} warn` : ""}`;
    },
  );
  return `*By check:* ${items.length > 0 ? items.join(" · ") : "every check passes on every table."}`;
}

export function renderSweepDigest(d: Digest): SlackMessage {
  const blocks: KnownBlock[] = [
    header(headline(d).slice(0, LIMITS.headerText)),
    context(
      `Sweep \`${escapeCode(d.sweepId)}\` · took ${formatDuration(Math.max(0, d.finishedAtMs - d.startedAtMs))}${d.errorsTotal > 0 ? ` · ${groupDigits(d.errorsTotal)} tables could not be read` : ""} · score 100 = nothing to fix`,
    ),
  ];
  if (d.inIncident.length > 0) {
    const lines = d.inIncident.map((i) => {
      const link = threadLink(i.permalink, "incident thread");
      return `• \`${escapeCode(i.table)}\` (score ${i.score}/100): ${link || `incident ${escapeMrkdwn(i.incidentId)}`}`;
    });
    blocks.push(section(`*Failing right now, already in an incident:*\n${lines.join("\n")}`));
  }
  blocks.push(divider());
  if (d.worst.length === 0)
    blocks.push(section("No table has a failing check or a warning. :white_check_mark:"));
  if (d.byCatalog && d.byCatalog.length > 0) {
    // Several catalogs: each one's line, then its worst tables under it (ranks stay sweep-wide).
    const ranked = d.worst.map((t, i) => ({ t, rank: i + 1 }));
    for (const c of d.byCatalog) {
      blocks.push(section(catalogLine(c)));
      for (const { t, rank } of ranked.filter((r) => r.t.catalog === c.catalog))
        blocks.push(...tableBlocks(t, rank, d.sweepId));
    }
    for (const { t, rank } of ranked.filter((r) => !d.byCatalog?.some((c) => c.catalog === r.t.catalog)))
      blocks.push(...tableBlocks(t, rank, d.sweepId));
  } else {
    d.worst.forEach((t, i) => {
      blocks.push(...tableBlocks(t, i + 1, d.sweepId));
    });
  }
  blocks.push(divider(), section(changesText(d)), section(countsText(d)));
  if (d.recurring) blocks.push(...recurringBlocks(d.recurring.tables, d.recurring.days));
  if (d.errors.length > 0) {
    const shown = d.errors
      .slice(0, 5)
      .map((e) => `\`${escapeCode(e.table)}\`: ${escapeMrkdwn(e.error.slice(0, 150))}`);
    blocks.push(
      context(
        truncateText(
          `Not read: ${shown.join("; ")}${d.errorsTotal > shown.length ? ` … and ${groupDigits(d.errorsTotal - shown.length)} more` : ""}`,
          LIMITS.fieldText,
        ),
      ),
    );
  }
  if (d.skipped && d.skipped.length > 0) {
    const lines = d.skipped.map(
      (s) => `• ${groupDigits(s.count)} × ${escapeMrkdwn(SKIP_REASON_TEXT[s.reason])}`,
    );
    // Last block kept even when the message is cut: a partial digest must say it is partial.
    const partial = section(`*Partial sweep.* Left out:\n${lines.join("\n")}`);
    return {
      text: `${headline(d)} (partial)`,
      blocks: [...blocks.slice(0, LIMITS.messageBlocks - 1), partial],
    };
  }
  return { text: headline(d), blocks: blocks.slice(0, LIMITS.messageBlocks) };
}

/** The latest sweep on App Home: the headline, when it ran, and the five worst tables. */
export function sweepHomeBlocks(d: Digest | undefined, nowMs: number): KnownBlock[] {
  const blocks: KnownBlock[] = [header("Latest sweep")];
  if (!d) return [...blocks, section("No sweep has run yet. Start one with `/iceberg sweep`.")];
  blocks.push(section(`${headline(d)}.`), context(`Finished ${slackWhen(d.finishedAtMs, nowMs)}`));
  const lines = d.worst
    .slice(0, 5)
    .map((t, i) => `${i + 1}. \`${escapeCode(t.table)}\` · score ${t.score}/100 · ${checkList(t)}`);
  const incidents = d.inIncident.slice(0, 5).map((i) => {
    const link = threadLink(i.permalink, "incident thread");
    return `• \`${escapeCode(i.table)}\`: ${link || "open incident"}`;
  });
  if (lines.length > 0) blocks.push(section(`*Worst tables*\n${lines.join("\n")}`));
  if (incidents.length > 0) blocks.push(section(`*In an incident*\n${incidents.join("\n")}`));
  blocks.push(divider());
  return blocks;
}
