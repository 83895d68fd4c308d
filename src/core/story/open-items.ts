// What is left for a person: the items the diagnosis raised (core/verification/open-items.ts owns
// which), with who marked each done as the remediation record keeps it.

import type { RemediationRecord } from "../remediation/record.js";
import type { Report } from "../report/schema.js";
import { mergeOpenItems, type OpenItem, openItemsOf } from "../verification/open-items.js";

export function storyOpenItems(
  report: Report | undefined,
  record: RemediationRecord | undefined,
): OpenItem[] {
  const raised = report ? openItemsOf(report) : [];
  // Records written before items had a kind hold to-dos only.
  return mergeOpenItems(record?.openItems, raised).map(({ resolvedBy: _, ...item }) => ({
    ...item,
    kind: item.kind ?? "todo",
  }));
}
