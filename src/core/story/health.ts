// The failing writer's commit health: the one thing the card's colour follows, on every surface.
// Red while the writer's commits fail, green once they flow, blue when it is idle by design, grey
// when the bot cannot tell: no diagnosis yet, the catalog (where commits are read) did not answer,
// the newest check could not read them, or a verdict that rests only on sources that did not answer
// (the bot's own refused credential is never the writer's failure).

import type { Report } from "../report/schema.js";
import { verdictSeen } from "./evidence.js";
import type { CommitHealth, StoryCheck, StoryRecovery, UnseenSource } from "./model.js";

export function healthOf(
  report: Report | undefined,
  unseen: readonly UnseenSource[],
  recovery: StoryRecovery | undefined,
  /** The newest follow-up check of the step in play, when there was one. */
  lastCheck: StoryCheck | undefined,
): CommitHealth {
  if (recovery || lastCheck?.outcome === "recovered") return "flowing";
  // The newest look at the writer's commits could not read them: nothing is known now.
  if (lastCheck?.outcome === "could-not-check") return "unknown";
  if (!report) return "unknown";
  // Commits are read from the table's snapshots: with the catalog silent nobody can say whether
  // they fail, whatever Flink or Connect show (the verdict says what they show, in words).
  if (unseen.some((u) => u.kind === "catalog" && u.source === undefined)) return "unknown";
  if (report.verdict === "healthy")
    return report.findings.some((f) => f.id === "writer-idle") ? "idle" : "flowing";
  if (report.verdict === "writer-idle") return "idle";
  return verdictSeen(report, unseen) ? "failing" : "unknown";
}
