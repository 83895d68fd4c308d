// The cause the root card names: a root-cause finding (who won the race), and only under a verdict
// that is a race. A stopped coordinator or a checkpoint problem has its cause in the verdict itself.
// Shared by the card and the diagnosis message, so the thread says the cause once.

import { ROOT_CAUSE_IDS } from "../../../core/ids.js";
import type { Finding, Report } from "../../../core/report/schema.js";

const RACE_VERDICTS = new Set<string>(["commit-conflict", "commit-failing", "validation-conflict"]);

export function cardCause(report: Report | undefined): Finding | undefined {
  if (!report || !RACE_VERDICTS.has(report.verdict)) return undefined;
  return report.findings.find((f) => (ROOT_CAUSE_IDS as readonly string[]).includes(f.id));
}
