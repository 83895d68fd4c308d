// `history <table>`: the table's past incidents, newest first, with the step that fixed each.
// `postmortem <incident>`: the incident's postmortem as markdown, and its two commit timeline
// pictures, written to disk (the same draft the thread got when it resolved).
// Both read the bot's Redis (REDIS_URL), under the bot's key namespace.

import { mkdirSync, writeFileSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { renderPostmortemMarkdown } from "../../adapters/render/postmortem-markdown.js";
import { escapeForTerminal } from "../../adapters/render/text-safety.js";
import type { IncidentHistory } from "../../core/history/record.js";
import { utcDateTime } from "../../core/words/clock.js";
import { formatDuration } from "../../core/words/duration.js";
import { causeWords, stepWords } from "../../core/words/labels.js";
import { type UnreadableRecord, unreadableWords } from "../../core/words/unreadable.js";
import { CodedError, ErrorCode } from "../../errors.js";
import { oneOf, parseCall } from "../args.js";
import { loadCliConfig } from "../config-overlay.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { type CommandCall, writeLine } from "../io.js";

const OPTIONS = {
  format: { type: "string" },
  out: { type: "string" },
  "redis-namespace": { type: "string" },
} as const;

export async function runHistoryCommand(call: CommandCall): Promise<ExitCodeValue> {
  const { command, io } = call;
  const { values, positionals } = parseCall(call, OPTIONS, [command === "history" ? "table" : "incident"]);
  const [subject] = positionals;
  const format = command === "history" ? oneOf(command, "--format", values.format, ["text", "json"]) : "text";
  // BOT_CONFIG as every command reads it: inline YAML, or the path of a file.
  const config = loadCliConfig(call, {});
  const { createRedisClient } = await import("../../adapters/redis/connection.js");
  const { HistoryStore } = await import("../../adapters/store/history-store.js");
  const { IncidentStore } = await import("../../adapters/store/incident-store.js");
  const { RemediationStore } = await import("../../adapters/store/remediation-store.js");
  const namespace = values["redis-namespace"];
  const redis = createRedisClient(config.redis, "commands");
  redis.on("error", () => {});
  try {
    const now = io.now ?? Date.now;
    const history = new HistoryStore(redis, {
      ...(namespace ? { namespace } : {}),
      resolvedDays: config.bot.retention.resolvedDays,
      now,
    });
    if (command === "history") {
      const unreadable: UnreadableRecord[] = [];
      const incidents = await history.list(String(subject), (record) => unreadable.push(record));
      // What could not be read is said on stderr, so --format json stays parseable.
      const note = unreadableWords(unreadable, (name) => escapeForTerminal(name));
      if (note) writeLine(io.stderr, `warning: ${note}`);
      if (format === "json") writeLine(io.stdout, JSON.stringify(incidents, null, 2));
      else if (incidents.length === 0)
        writeLine(
          io.stdout,
          `No incidents of ${escapeForTerminal(String(subject))} in the last ${config.bot.retention.resolvedDays} days.`,
        );
      else for (const h of incidents) writeLine(io.stdout, historyLine(h));
      return ExitCode.Ok;
    }
    const store = new IncidentStore(redis, namespace ? { namespace } : {});
    const walks = new RemediationStore(redis, namespace);
    const { draftPostmortem } = await import("../../services/history/postmortem.js");
    const draft = await draftPostmortem({ history, store, walks }, String(subject));
    if (!draft)
      throw new CodedError(
        ErrorCode.TableNotFound,
        `No closed incident ${escapeForTerminal(String(subject))} with a history is kept in Redis.`,
        { hint: "Run `iceberg-bot history <table>` to list the table's incidents and their ids." },
      );
    const dir = resolvePath(values.out ?? ".");
    mkdirSync(dir, { recursive: true });
    const { renderPng } = await import("../../adapters/chart/render-png.js");
    const { timelineSpec } = await import("../../core/chart/timeline-spec.js");
    const pm = draft.postmortem;
    const mdPath = resolvePath(
      dir,
      `${pm.table}-postmortem-${pm.incidentId}.md`.replace(/[^A-Za-z0-9._/-]/g, "_"),
    );
    writeFileSync(mdPath, renderPostmortemMarkdown(pm));
    writeLine(io.stdout, mdPath);
    for (const picture of pm.pictures) {
      const chart = draft.charts.get(picture.name);
      if (!chart) continue;
      const path = resolvePath(dir, picture.name);
      writeFileSync(path, (await renderPng(timelineSpec(chart))).png);
      writeLine(io.stdout, path);
    }
    return ExitCode.Ok;
  } finally {
    redis.disconnect();
  }
}

/** "2026-11-12 09:00 UTC  inc-1  commit conflict (competing appends): fixed by raise commit retries in 6 min". */
function historyLine(h: IncidentHistory): string {
  const what = h.triage ? causeWords(h.triage, h.rootCause) : h.verdict;
  const fixed = h.steps.find((s) => s.outcome === "fixed");
  const outcome = fixed
    ? `fixed by ${stepWords(fixed.stepId)}${fixed.recoveredAfterMs !== undefined ? ` in ${formatDuration(fixed.recoveredAfterMs)}` : ""}`
    : h.state === "stopped"
      ? "stopped without a fix"
      : "resolved without a step";
  const notHelped = h.steps.filter((s) => s.outcome === "did-not-help").map((s) => stepWords(s.stepId));
  const rest = notHelped.length > 0 ? `; did not help: ${notHelped.join(", ")}` : "";
  return escapeForTerminal(`${utcDateTime(h.openedAtMs)}  ${h.incidentId}  ${what}: ${outcome}${rest}`);
}
