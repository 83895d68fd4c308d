// Other committers appending around the failure: each append moves the metadata pointer the
// writer must swap. Needs one in the window and at least two in the lookback (a burst, not noise).

import type { Snapshot } from "../../evidence/model.js";
import { compact, snapshotListItem, windowItem } from "../evidence-items.js";
import { otherCommits } from "../other-commits.js";
import { type DiagnosisRule, finding } from "../rule.js";

const MIN_APPENDS = 2;
const isAppend = (s: Snapshot) => s.operation === "append";

export const competingAppends: DiagnosisRule = {
  id: "competing-appends",
  evaluate(ctx) {
    const w = ctx.window;
    if (!w || !ctx.troubled) return null;
    const around = otherCommits(ctx, w.lookback, isAppend);
    const inWindow = otherCommits(ctx, w.range, isAppend).count;
    if (inWindow === 0 || around.count < MIN_APPENDS) return null;
    const names = around.committers.map((c) => c.name);
    return finding(
      "warning",
      `${names.length === 1 ? names[0] : `${names.length} other committers`} appended ${around.count} times around the failure (${inWindow} since the writer's last good commit)`,
      compact([
        snapshotListItem("Appends by other committers (newest listed)", around.newest, around.count),
        windowItem(ctx),
      ]),
    );
  },
};
