// storyOf: what is stored about an incident (the incident, its newest and first reports, the walk
// record, what people said and who claimed it) turned into the one IncidentStory every surface
// renders. Pure: no clock, no I/O; the same input always tells the same story.

import { type Incident, isOpenState } from "../incident/model.js";
import type { RemediationRecord } from "../remediation/record.js";
import type { Playbook } from "../remediation/schema.js";
import type { Report } from "../report/schema.js";
import { cadenceOf, causeFinding, firstFailureMs, lastGoodCommitMs, unseenOf, writerOf } from "./evidence.js";
import { healthOf } from "./health.js";
import type { IncidentStory, StoryRemark } from "./model.js";
import { storyOpenItems } from "./open-items.js";
import { type Claim, ownerOf } from "./owner.js";
import { recoveryOf } from "./recovery.js";
import { walkStory } from "./steps.js";

export interface StoryInput {
  incident: Incident;
  /** The newest report that parses. */
  report?: Report;
  /** The incident's first report (what the history matches incidents on). */
  firstReport?: Report;
  walk?: RemediationRecord;
  /** The walk's playbook: which step the bot applies itself and which comes next. */
  playbook?: Playbook;
  remarks?: readonly StoryRemark[];
  claim?: Claim;
}

export function storyOf(input: StoryInput): IncidentStory {
  const { incident, report, walk, playbook } = input;
  const unseen = unseenOf(report);
  const recovery = recoveryOf(walk);
  const walked = walkStory(walk, playbook);
  const lastCheck = walked.step?.checks[walked.step.checks.length - 1];
  const health = healthOf(report, unseen, recovery, lastCheck);
  const verdict = report?.findings.find((f) => f.id === report.verdict);
  const cause = causeFinding(report);
  const closed = !isOpenState(incident.state);
  // A new diagnosis runs before the walk moves on: say so; otherwise the walk says where things are.
  const workflow =
    closed || incident.state === "diagnosing" ? incident.state : (walked.workflow ?? incident.state);
  return {
    incidentId: incident.id,
    table: incident.table,
    channel: incident.channel,
    rootTs: incident.rootTs,
    workflow,
    openedAtMs: incident.openedAt,
    closedAtMs: incident.resolvedAt,
    health,
    writer: writerOf(report, walk),
    lastGoodCommitMs: lastGoodCommitMs(report),
    firstFailureMs: firstFailureMs(report),
    cadence: cadenceOf(input.firstReport ?? report),
    unseen,
    verdict: report ? { id: report.verdict, summary: verdict?.summary ?? report.verdict } : undefined,
    cause: cause ? { id: cause.id, summary: cause.summary } : undefined,
    evidence: [...(verdict?.evidence ?? []), ...(cause?.evidence ?? [])].map((e) => e.detail),
    step: walked.step,
    steps: walked.steps,
    recovery,
    openItems: storyOpenItems(report ?? input.firstReport, walk),
    owner: ownerOf(input.claim, walk),
    remarks: [...(input.remarks ?? [])].sort((a, b) => a.atMs - b.atMs),
    alerts: {
      received: incident.alertCount,
      firing: incident.firingAlerts,
      clearedAtMs: incident.alertResolvedAt,
    },
    tableUnknown: incident.tableUnknown || undefined,
    nextStep: report?.nextStep ? { stepId: report.nextStep.id, summary: report.nextStep.summary } : undefined,
  };
}
