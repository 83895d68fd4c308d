// The writer's newest failure since its last success is an exception that is neither a conflict,
// an unknown state nor a validation failure: a credential the catalog refuses, a catalog that fails
// or times out, a writer out of memory, or the committer's own exception. Retries and restarts do
// not fix any of these; the root exception's class decides the step (RUNBOOK §3, §4 step 2).

import { simpleClassName } from "../../evidence/exceptions.js";
import type { CommitErrorCause } from "../../ids.js";
import type { EvidenceItem } from "../../report/schema.js";
import type { DiagnosisContext } from "../context.js";
import { compact, describeWriter, quoteLine, quoteOf, writerLastCommit } from "../evidence-items.js";
import type { CommitFailure } from "../failures.js";
import { type DiagnosisRule, finding } from "../rule.js";

const WHAT: Record<CommitErrorCause, (who: string, cls: string) => string> = {
  auth: (who, cls) =>
    `The catalog refuses the credential of ${who} (${cls}): its commits fail until the credential is renewed`,
  unavailable: (who, cls) =>
    `The catalog fails or times out on the commits of ${who} (${cls}): the service, not the writer, is failing`,
  resources: (who, cls) =>
    `${who} runs out of memory on its commit path (${cls}): it fails again on every restart until it has more`,
  "writer-error": (who, cls) =>
    `The committer of ${who} throws ${cls} on every attempt: a bug or misconfiguration that retries cannot fix`,
};

/** The newest failure when it is a commit-error (a Connect trace, undated, counts when no dated failure is newer). */
export function newestCommitError(ctx: DiagnosisContext): CommitFailure | undefined {
  const newest = ctx.failures[0];
  if (newest?.kind === "commit-error") return newest;
  if (newest && newest.atMs !== undefined) return undefined;
  return ctx.failures.find((f) => f.kind === "commit-error");
}

export const commitError: DiagnosisRule = {
  id: "commit-error",
  evaluate(ctx) {
    const newest = newestCommitError(ctx);
    if (!newest) return null;
    const quote = quoteOf(ctx.failures, newest);
    const cause = newest.cause ?? "writer-error";
    const quoted: EvidenceItem = {
      source: newest.source,
      detail: quoteLine(quote),
      data: { ...quote, cause },
    };
    const wrapper: EvidenceItem | null = newest.thrownAs
      ? {
          source: newest.source,
          detail: `Thrown as ${newest.thrownAs}; the root of its Caused by: chain is ${newest.root.className}`,
          data: { thrownAs: newest.thrownAs, root: newest.root.className },
        }
      : null;
    return finding(
      "critical",
      WHAT[cause](describeWriter(ctx), simpleClassName(newest.root.className)),
      compact([quoted, wrapper, writerLastCommit(ctx)]),
      { quote, cause },
    );
  },
};
