// Other committers appending around the failure: each append moves the metadata pointer the
// writer must swap. Needs one in the window and at least two in the lookback (a burst, not noise).

import { committerKey, committerOf, describeCommitter } from "../../attribution/attribute.js";
import type { Snapshot } from "../../evidence/model.js";
import { forEachOther } from "../context.js";
import { compact, snapshotListItem, windowItem } from "../evidence-items.js";
import { type DiagnosisRule, finding } from "../rule.js";

const MIN_APPENDS = 2;

export const competingAppends: DiagnosisRule = {
  id: "competing-appends",
  evaluate(ctx) {
    const w = ctx.window;
    if (!w || !ctx.troubled) return null;
    const found: Snapshot[] = [];
    let inLookback = 0;
    let inWindow = 0;
    const who = new Map<string, string>();
    forEachOther(ctx, w.lookback, (s, i) => {
      if (s.operation !== "append") return;
      inLookback++;
      if (i >= w.range.from) inWindow++;
      found.push(s);
      if (found.length > 5) found.shift();
      const identity = committerOf(s);
      who.set(committerKey(identity), describeCommitter(identity));
    });
    if (inWindow === 0 || inLookback < MIN_APPENDS) return null;
    const names = [...who.values()];
    return finding(
      "competing-appends",
      "warning",
      `${names.length === 1 ? names[0] : `${names.length} other committers`} appended ${inLookback} times around the failure (${inWindow} since the writer's last good commit)`,
      compact([
        snapshotListItem("Appends by other committers (newest listed)", found.reverse(), inLookback),
        windowItem(ctx),
      ]),
    );
  },
};
