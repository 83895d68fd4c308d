// Carries out Slack jobs: the status card (posted once, then edited in place), the diagnosis in
// the thread, notes, command results and ephemeral replies. Every thread message goes through a
// claim so two processes, or a job that runs twice, never post it twice.

import { describeTimeline, isTimelineChart } from "../../core/chart/timeline.js";
import { ROOT_CAUSE_IDS, STEP_IDS, type StepId } from "../../core/ids.js";
import type { Incident } from "../../core/incident/model.js";
import { AuditReportSchema, type Report, ReportSchema } from "../../core/report/schema.js";
import { CodedError, ErrorCode } from "../../errors.js";
import type { LogLike } from "../../services/incident-deps.js";
import type { ThreadTarget, TimelinePoster } from "../../services/ports.js";
import { readCardSummary } from "../../services/remediation-views.js";
import type { EphemeralReply, SlackJob } from "../queue/jobs.js";
import type { Claims } from "../store/claims.js";
import type { IncidentStore } from "../store/incident-store.js";
import type { SlackMessage } from "./render/block-kit.js";
import { escapeMrkdwn } from "./render/limits.js";
import type { HistoryEntry, StatusCardView } from "./render/view-models.js";
import type { Renderers } from "./renderers.js";
import type { SlackClient } from "./web-client.js";

export interface SlackJobDeps {
  client: SlackClient;
  store: IncidentStore;
  claims: Claims;
  render: Renderers;
  now: () => number;
  onSlackError?: (method: string) => void;
  /** Draws and shares the commit timeline under the diagnosis; absent, the thread is words only. */
  timeline?: TimelinePoster;
  log?: Pick<LogLike, "warn">;
  /**
   * Hands a job to the outbox when the outbox carries its kind (the root, card edits, diagnoses,
   * notes and in-thread results); true when it did. Absent, every job is carried out here.
   */
  route?: (job: SlackJob) => Promise<boolean>;
}

export async function runSlackJob(deps: SlackJobDeps, job: SlackJob, jobId: string): Promise<void> {
  if (deps.route && (await deps.route(job))) return;
  switch (job.kind) {
    case "root":
      await ensureRoot(deps, await deps.store.require(job.incidentId), jobId);
      return;
    case "card":
      await updateCard(deps, job.incidentId, jobId);
      return;
    case "diagnosis":
      await postDiagnosis(deps, job.incidentId, job.n, jobId);
      return;
    case "note":
      // Notes carry error messages that may quote upstream text: shown as typed, never as markup.
      await postInThread(deps, job.incidentId, `note-${job.key}`, jobId, {
        text: escapeMrkdwn(job.text),
        blocks: [],
      });
      return;
    case "command-result":
      await postCommandResult(deps, job, jobId);
      return;
    case "ephemeral":
      await postEphemeral(deps, job.channel, job.user, await ephemeralMessage(deps, job.reply));
      return;
  }
}

async function call<T>(deps: SlackJobDeps, method: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    deps.onSlackError?.(method);
    throw new CodedError(ErrorCode.SlackApi, `Slack ${method} failed: ${(error as Error).message}`, {
      retryable: true,
      cause: error,
      hint: "The job is retried with backoff; check the bot token and Slack's status if it keeps failing.",
    });
  }
}

function messageArgs(message: SlackMessage) {
  return message.blocks.length > 0 ? { text: message.text, blocks: message.blocks } : { text: message.text };
}

/** Posts a message at most once per (incident, name): the claim guards it across processes. */
async function postOnce(
  deps: SlackJobDeps,
  incidentId: string,
  name: string,
  jobId: string,
  post: () => Promise<string>,
): Promise<string> {
  const claim = await deps.claims.claim(incidentId, name, jobId);
  if (claim.kind === "done") return claim.ts;
  if (claim.kind === "held-by-other") {
    throw new CodedError(
      ErrorCode.SlackApi,
      `Message ${name} of ${incidentId} is being posted by ${claim.owner}.`,
      {
        retryable: true,
      },
    );
  }
  let ts: string;
  try {
    ts = await post();
  } catch (error) {
    await deps.claims.release(incidentId, name, jobId);
    throw error;
  }
  await deps.claims.complete(incidentId, name, ts);
  return ts;
}

async function latestReport(
  deps: Pick<SlackJobDeps, "store">,
  incident: Incident,
): Promise<Report | undefined> {
  for (let n = incident.diagnoses; n >= 1; n--) {
    const parsed = ReportSchema.safeParse(await deps.store.getReport(incident.id, n));
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

export function cardView(incident: Incident, report: Report | undefined, now: number): StatusCardView {
  const verdict = report?.findings.find((f) => f.id === report.verdict);
  // The cause line names who won the race (a root-cause finding), not a second triage finding.
  const cause =
    report?.findings.find((f) => isRootCause(f.id)) ??
    report?.findings.find((f) => f.id !== report.verdict && f.severity !== "info");
  let nowLine: string | undefined;
  if (incident.state === "diagnosing") nowLine = "reading the catalog, Flink, Kafka Connect and metrics";
  else if (incident.state === "awaiting-approval" && report?.nextStep)
    nowLine = `next step: "${report.nextStep.summary}"`;
  // The playbook walk, when one runs, says what happens now (approval, applying, check n of m).
  const walk = readCardSummary(incident.walk);
  if (walk?.nowLine !== undefined) nowLine = walk.nowLine;
  if (incident.alertResolvedAt !== undefined && incident.state !== "resolved") {
    nowLine = `${nowLine ? `${nowLine}; ` : ""}the alert cleared, waiting for the writer's commits to resume`;
  } else if (
    incident.firingAlerts !== undefined &&
    incident.firingAlerts > 0 &&
    incident.state !== "resolved"
  ) {
    // The alerts of the table still firing, as the sender last told us.
    const alerts = `${incident.firingAlerts} alert${incident.firingAlerts === 1 ? "" : "s"} firing`;
    nowLine = `${nowLine ? `${nowLine}; ` : ""}${alerts}`;
  }
  return {
    table: incident.table,
    state: incident.state,
    verdictLine: verdict ? verdict.summary : report?.verdict,
    causeLine: cause?.summary,
    nowLine,
    openedAtMs: incident.openedAt,
    ...commitTiming(report),
    nowMs: now,
    ...(walk?.step ? { step: walk.step } : {}),
    ...(walk?.check ? { check: walk.check } : {}),
    ...(walk?.resolution && incident.state === "resolved" ? { resolution: walk.resolution } : {}),
  };
}

/** A healthy verdict means commits flow: the last commit is news, not the start of a stall. */
function commitTiming(report: Report | undefined): Pick<StatusCardView, "stalledSinceMs" | "commitsFlowing"> {
  if (!report) return {};
  const lastCommitMs = lastWriterCommitMs(report);
  if (report.verdict === "healthy")
    return { commitsFlowing: lastCommitMs === undefined ? {} : { lastCommitMs } };
  return lastCommitMs === undefined ? {} : { stalledSinceMs: lastCommitMs };
}

function isRootCause(id: string): boolean {
  return (ROOT_CAUSE_IDS as readonly string[]).includes(id);
}

/**
 * The failing writer's newest snapshot time, whichever finding carries it (marked
 * writerLastCommitAt); older reports only had committedAt on the verdict's own evidence.
 */
function lastWriterCommitMs(report: Report): number | undefined {
  for (const finding of report.findings) {
    for (const item of finding.evidence) {
      const at = item.data.writerLastCommitAt;
      if (typeof at === "string" && Number.isFinite(Date.parse(at))) return Date.parse(at);
    }
  }
  const verdict = report.findings.find((f) => f.id === report.verdict);
  for (const item of verdict?.evidence ?? []) {
    const committedAt = item.data.committedAt;
    if (typeof committedAt === "string") {
      const ms = Date.parse(committedAt);
      if (Number.isFinite(ms)) return ms;
    }
  }
  return undefined;
}

/** The status card of the incident's current state. */
export async function renderCard(
  deps: Pick<SlackJobDeps, "store" | "render" | "now">,
  incident: Incident,
): Promise<SlackMessage> {
  return deps.render.statusCard(cardView(incident, await latestReport(deps, incident), deps.now()));
}

export async function ensureRoot(deps: SlackJobDeps, incident: Incident, jobId: string): Promise<string> {
  if (incident.rootTs) return incident.rootTs;
  const ts = await postOnce(deps, incident.id, "root", jobId, async () => {
    const message = await renderCard(deps, incident);
    const result = await call(deps, "chat.postMessage", () =>
      deps.client.chat.postMessage({ channel: incident.channel, ...messageArgs(message) }),
    );
    return String(result.ts);
  });
  await deps.store.update(incident.id, { rootTs: ts }, deps.now());
  return ts;
}

async function updateCard(deps: SlackJobDeps, incidentId: string, jobId: string): Promise<void> {
  const incident = await deps.store.require(incidentId);
  const ts = await ensureRoot(deps, incident, jobId);
  // Rendered from the current state, so a late job never shows an older card.
  const message = await renderCard(deps, await deps.store.require(incidentId));
  await call(deps, "chat.update", () =>
    deps.client.chat.update({ channel: incident.channel, ts, ...messageArgs(message) }),
  );
}

async function postInThread(
  deps: SlackJobDeps,
  incidentId: string,
  name: string,
  jobId: string,
  message: SlackMessage,
): Promise<string> {
  const incident = await deps.store.require(incidentId);
  const rootTs = await ensureRoot(deps, incident, jobId);
  return postOnce(deps, incidentId, name, jobId, async () => {
    const result = await call(deps, "chat.postMessage", () =>
      deps.client.chat.postMessage({ channel: incident.channel, thread_ts: rootTs, ...messageArgs(message) }),
    );
    return String(result.ts);
  });
}

async function postDiagnosis(
  deps: SlackJobDeps,
  incidentId: string,
  n: number,
  jobId: string,
): Promise<void> {
  const message = await diagnosisMessage(deps, incidentId, n);
  const incident = await deps.store.require(incidentId);
  const rootTs = await ensureRoot(deps, incident, jobId);
  await postOnce(deps, incidentId, `diagnosis-${n}`, jobId, async () => {
    const result = await call(deps, "chat.postMessage", () =>
      deps.client.chat.postMessage({ channel: incident.channel, thread_ts: rootTs, ...messageArgs(message) }),
    );
    // Before the diagnosis counts as posted, so the proposal that waits for it lands under the picture.
    await postDiagnosisChart(deps, { channel: incident.channel, threadTs: rootTs }, incidentId, n, jobId);
    return String(result.ts);
  });
}

/**
 * The commit timeline under the diagnosis, once. It comes after the words and its failure is only
 * logged: an upload that fails must never hold back or repeat the text diagnosis.
 */
export async function postDiagnosisChart(
  deps: Pick<SlackJobDeps, "timeline" | "store" | "claims" | "onSlackError" | "log">,
  target: ThreadTarget,
  incidentId: string,
  n: number,
  jobId: string,
): Promise<void> {
  const poster = deps.timeline;
  if (!poster) return;
  const name = `diagnosis-${n}-chart`;
  try {
    const chart = await deps.store.getChart(incidentId, n);
    if (!isTimelineChart(chart)) return;
    const claim = await deps.claims.claim(incidentId, name, jobId);
    if (claim.kind !== "mine") return;
    const { fileId } = await poster.post(target, chart, {
      name: `${chart.table}-commits-${n}.png`,
      title: `Commits to ${chart.table}`,
      altText: describeTimeline(chart),
    });
    await deps.claims.complete(incidentId, name, fileId);
  } catch (error) {
    // Marked done anyway: a retried job must not try again and again, nor post the words twice.
    await deps.claims.complete(incidentId, name, "failed").catch(() => {});
    deps.onSlackError?.("files.upload");
    deps.log?.warn({ incidentId, err: (error as Error).message }, "commit timeline not posted");
  }
}

/** The message of diagnosis n of an incident, as its thread shows it. */
export async function diagnosisMessage(
  deps: Pick<SlackJobDeps, "store" | "render">,
  incidentId: string,
  n: number,
): Promise<SlackMessage> {
  const report = ReportSchema.parse(await deps.store.getReport(incidentId, n));
  return deps.render.diagnosis(report, { evidenceRef: `${incidentId}|${n}` });
}

/** A slash command's result (a diagnosis or an audit). */
export function commandResultMessage(
  deps: Pick<SlackJobDeps, "render">,
  result: Extract<SlackJob, { kind: "command-result" }>["result"],
): SlackMessage {
  return result.type === "diagnosis"
    ? deps.render.diagnosis(ReportSchema.parse(result.report))
    : deps.render.audit(AuditReportSchema.parse(result.report));
}

async function postCommandResult(
  deps: SlackJobDeps,
  job: Extract<SlackJob, { kind: "command-result" }>,
  jobId: string,
): Promise<void> {
  const message = commandResultMessage(deps, job.result);
  if (job.incidentId) {
    await postInThread(deps, job.incidentId, `result-${job.key}`, jobId, message);
    return;
  }
  // No open incident: a top-level message. The job id dedupes it; the claim covers a retried job.
  await postOnce(deps, "commands", job.key, jobId, async () => {
    const result = await call(deps, "chat.postMessage", () =>
      deps.client.chat.postMessage({ channel: job.channel, ...messageArgs(message) }),
    );
    return String(result.ts);
  });
}

async function postEphemeral(deps: SlackJobDeps, channel: string, user: string, message: SlackMessage) {
  await call(deps, "chat.postEphemeral", () =>
    deps.client.chat.postEphemeral({ channel, user, ...messageArgs(message) }),
  );
}

async function ephemeralMessage(deps: SlackJobDeps, reply: EphemeralReply): Promise<SlackMessage> {
  switch (reply.kind) {
    case "unknown-table":
      return deps.render.usageError(reply);
    case "failed":
      return deps.render.usageError(reply);
    case "status": {
      const incidents = await deps.store.listOpen();
      const links = await Promise.all(incidents.map((i) => threadPermalink(deps.client, i)));
      return deps.render.statusList({
        nowMs: deps.now(),
        incidents: incidents.map((i, index) => ({
          incidentId: i.id,
          table: i.table,
          state: i.state,
          openedAtMs: i.openedAt,
          permalink: links[index],
        })),
      });
    }
    case "history": {
      const rows = await deps.store.audit(reply.table);
      const entries: HistoryEntry[] = rows.map((row) => ({
        atMs: Number(row.at ?? 0),
        actor: row.actor ?? "bot",
        action: row.action ?? "note",
        detail: row.detail,
        ...((STEP_IDS as readonly string[]).includes(row.stepId ?? "")
          ? { stepId: row.stepId as StepId }
          : {}),
      }));
      return deps.render.history({ table: reply.table, entries });
    }
  }
}

/** Link to the incident's thread; best effort, a list without links beats no list. */
export async function threadPermalink(
  client: Pick<SlackClient, "chat">,
  incident: Incident,
): Promise<string | undefined> {
  if (!incident.rootTs) return undefined;
  try {
    const result = await client.chat.getPermalink({ channel: incident.channel, message_ts: incident.rootTs });
    return result.permalink;
  } catch {
    return undefined;
  }
}
