// What a report could not read, in one list for every renderer: a kind of source that did not
// answer at all, and each named source of a kind that stayed silent while the others answered
// (one Flink cluster of several). Leaving the second out would let a report look complete when
// the writer may run on the cluster nobody heard from.

import { SOURCE_NAMES, type SourceName } from "../ids.js";
import type { Report } from "./schema.js";

export interface UnansweredSource {
  kind: SourceName;
  /** The named source of the kind that did not answer; absent when the whole kind did not. */
  source?: string;
  /** What happened, as the source or the client said it (never a secret). */
  reason: string;
}

export function unansweredSources(sources: Report["sources"]): UnansweredSource[] {
  return SOURCE_NAMES.flatMap((kind): UnansweredSource[] => {
    const status = sources[kind];
    if (status.status === "unavailable") return [{ kind, reason: status.error ?? "did not answer" }];
    return (status.gaps ?? []).map((gap) => ({ kind, source: gap.source, reason: gap.error }));
  });
}
