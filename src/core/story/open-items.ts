// What is left for a person: the items the diagnosis raised (core/verification/open-items.ts owns
// which), with who marked each done as the walk record keeps it.

import type { WalkRecord } from "../remediation/record.js";
import type { Report } from "../report/schema.js";
import { mergeOpenItems, type OpenItem, openItemsOf } from "../verification/open-items.js";
import type { StoryOpenItem } from "./model.js";

export function storyOpenItems(report: Report | undefined, record: WalkRecord | undefined): StoryOpenItem[] {
  const raised = report ? openItemsOf(report) : [];
  const items: OpenItem[] = mergeOpenItems(record?.openItems, raised);
  return items.map((item) => {
    const extra = item as OpenItem & Partial<Pick<StoryOpenItem, "kind" | "findingId">>;
    return {
      id: item.id,
      kind: extra.kind ?? "todo",
      ...(extra.findingId ? { findingId: extra.findingId } : {}),
      text: item.text,
      ...(item.statement ? { statement: item.statement } : {}),
      ...(item.doneBy ? { doneBy: item.doneBy } : {}),
      ...(item.doneAtMs !== undefined ? { doneAtMs: item.doneAtMs } : {}),
    };
  });
}
