// The status card's view of the incident's story: the story's facts, put in the card's words. The
// card, App Home and `/iceberg status` all read this one projection, so they cannot disagree.

import { plural } from "../../../core/plural.js";
import type { IncidentStory, StoryStep, StoryWriter } from "../../../core/story/model.js";
import { sourceSaid, sourceWords, stepWords } from "../../../core/words/labels.js";
import type { OpenIncidentView, StatusCardView } from "../../../services/view-models.js";

/** The failing writer as people name it: "Flink job events-ingest (c7e1…) on eu-flink". */
export function writerWords(w: StoryWriter): string {
  const who =
    w.kind === "connect"
      ? `Kafka Connect connector ${w.id}`
      : `Flink job ${w.name ? `${w.name} (${w.id.slice(0, 4)}…)` : `${w.id.slice(0, 8)}…`}`;
  return `${who}${w.cluster ? ` on ${w.cluster}` : ""}`;
}

/** A step's title: the playbook's words when the story has them, else our own. */
const titleOf = (step: Pick<StoryStep, "stepId" | "title">) => step.title ?? stepWords(step.stepId);
const quoted = (step: StoryStep) => `"${titleOf(step)}"`;

/** What happens now, as the card's "Now:" line says it. */
function nowLine(story: IncidentStory): string | undefined {
  let line: string | undefined;
  const step = story.step;
  if (story.workflow === "diagnosing") line = "reading the catalog, Flink, Kafka Connect and metrics";
  else if (story.workflow === "stalled")
    line =
      step?.state === "could-not-check"
        ? "the bot could not check the table; nothing is restarted or changed until it can; the thread is yours"
        : "no playbook step left to try; the thread is yours";
  else if (story.workflow === "stopped") line = "the playbook was stopped";
  else if (step && story.workflow !== "resolved") line = stepNow(step);
  else if (story.workflow === "awaiting-approval" && story.nextStep)
    line = `next step: "${story.nextStep.summary}"`;
  if (story.tableUnknown && story.workflow !== "resolved")
    return "not a table the catalog or BOT_CONFIG knows; closes when its alerts resolve";
  if (story.workflow === "resolved" || story.workflow === "stopped") return line;
  if (story.alerts.clearedAtMs !== undefined)
    return `${line ? `${line}; ` : ""}the alert cleared, waiting for the writer's commits to resume`;
  const firing = story.alerts.firing;
  if (firing !== undefined && firing > 0)
    return `${line ? `${line}; ` : ""}${plural(firing, "alert")} firing`;
  return line;
}

function stepNow(step: StoryStep): string {
  const name = quoted(step);
  switch (step.state) {
    case "awaiting-approval":
      return `waiting for approval of ${name}`;
    case "apply-failed":
      return `${name} did not go through; waiting for a decision`;
    case "applying":
      return `applying ${name}`;
    case "verifying":
      return step.readOnly
        ? `the bot is checking: ${name}`
        : `verifying ${name}: watching the writer's commits`;
    case "no-recovery":
      return `no recovery after ${step.checks.length} checks of ${name}; waiting for a decision`;
    case "could-not-check":
      return `the last check of ${name} could not read the writer's commits; waiting for a decision`;
    case "done":
      return step.readOnly ? `checked ${name}; waiting for the next step` : `${name} done`;
    case "skipped":
      return `${name} was skipped; waiting for a decision`;
    case "reverting":
      return `reverting ${name}`;
    case "reverted":
      return `${name} was reverted; waiting for a decision`;
    case "stopped":
      return `${name} was stopped`;
  }
}

export function cardViewOf(story: IncidentStory, nowMs: number): StatusCardView {
  const resolved = story.workflow === "resolved";
  const open = !resolved && story.workflow !== "stopped";
  const step = story.step;
  const flowing = story.health === "flowing" || story.health === "idle";
  const fixedStep = story.steps.find((s) => s.stepId === (story.recovery?.stepId ?? step?.stepId));
  const ended = step?.state === "no-recovery" || step?.state === "could-not-check";
  return {
    table: story.table,
    state: story.workflow,
    health: story.health,
    verdictLine: story.verdict?.summary,
    causeLine: story.cause?.summary,
    nowLine: nowLine(story),
    failingWriter: story.health === "failing" && story.writer ? writerWords(story.writer) : undefined,
    downSources: story.unseen
      .filter((u) => !u.refusedBot)
      .map((u) => sourceSaid(sourceWords(u.kind, u.source), u.reason)),
    refusedBot: story.unseen.filter((u) => u.refusedBot),
    owner: story.owner,
    openedAtMs: story.openedAtMs,
    stalledSinceMs: flowing ? undefined : story.lastGoodCommitMs,
    commitsFlowing:
      flowing && open
        ? { lastCommitMs: story.lastGoodCommitMs, quietByDesign: story.health === "idle" }
        : undefined,
    nowMs,
    step: step ? { index: step.index, title: titleOf(step) } : undefined,
    check: story.workflow === "verifying" ? step?.check : undefined,
    noRecoveryAfterChecks: ended ? step.checks.length : undefined,
    couldNotCheck: step?.state === "could-not-check",
    resolution:
      resolved && story.recovery?.afterChangeMs !== undefined && fixedStep
        ? {
            fixedBy: titleOf(fixedStep),
            recoveredAfterMs: story.recovery.afterChangeMs,
            credit: story.recovery.credit,
            byHand: fixedStep.byHand,
          }
        : undefined,
    // Open items count from the moment they are found, not only once the writer recovered.
    openItems: story.openItems,
    itemAction:
      resolved && story.openItems.length > 0 && step?.proposalId
        ? { incidentId: story.incidentId, stepId: step.stepId, proposalId: step.proposalId }
        : undefined,
    decisions: open && step ? step.decisions : [],
    claimAction: open && !story.owner ? { incidentId: story.incidentId } : undefined,
  };
}

/** An open incident as `/iceberg status` and App Home list it: the card's own view, with its link. */
export function statusItemOf(story: IncidentStory, nowMs: number, permalink?: string): OpenIncidentView {
  return { ...cardViewOf(story, nowMs), incidentId: story.incidentId, permalink };
}
