// Every evidence source watched, whatever asked it (a diagnosis, an audit, the sweep): each request
// counted by outcome, the last success kept, and one log line when a source starts failing and
// one when it answers again, never one per request. What is failing now is readiness detail: the
// bot still works without a source (the report says what it could not read), so it stays ready.

import { CodedError, ErrorCode } from "../../errors.js";
import type { BotMetrics, SourceOutcome } from "../http/metrics/registry.js";

/** One request's outcome, reported by adapters/evidence/http.ts for a source's requests. */
export type SourceObserver = (outcome: SourceOutcome, reason?: string) => void;

/** What the source's answer says about the source: refused credentials, failing, or answering. */
export function outcomeOfStatus(status: number): SourceOutcome {
  if (status === 401 || status === 403 || status === 419) return "refused";
  if (status >= 500 || status === 429 || status === 408) return "error";
  // Any other answer (a 404 for a table that is not there, say) is the source doing its job.
  return "ok";
}

/** A request that got no usable answer. */
export function outcomeOfError(error: unknown): SourceOutcome {
  if (error instanceof CodedError) {
    if (error.code === ErrorCode.SourceTimeout) return "timeout";
    if (error.code === ErrorCode.SourceUnreachable) return "unreachable";
    if (error.code === ErrorCode.AuthFailed) return "refused";
  }
  return "error";
}

export interface FailingSource {
  kind: string;
  source: string;
  outcome: SourceOutcome;
  reason: string;
  /** Wall-clock ms of the first failure of this run of failures. */
  sinceMs: number;
}

export interface SourceWatch {
  /** The observer for one source's requests. */
  observer(kind: string, source: string): SourceObserver;
  /** Sources whose latest request failed. */
  failing(): FailingSource[];
}

interface SourceLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export function createSourceWatch(options: {
  metrics: Pick<BotMetrics, "sourceRequests" | "sourceLastSuccess" | "sourceFailing" | "know">;
  log: SourceLog;
  now: () => number;
}): SourceWatch {
  const { metrics, log, now } = options;
  const failing = new Map<string, FailingSource>();
  return {
    observer(kind, source) {
      metrics.know({ sources: [{ kind, source }] });
      const key = `${kind}\u0000${source}`;
      return (outcome, reason) => {
        const at = now();
        metrics.sourceRequests.inc({ kind, source, outcome });
        const before = failing.get(key);
        if (outcome === "ok") {
          metrics.sourceLastSuccess.set({ kind, source }, at / 1000);
          metrics.sourceFailing.set({ kind, source }, 0);
          if (before) {
            failing.delete(key);
            log.info(
              { kind, source, failedForSeconds: Math.round((at - before.sinceMs) / 1000) },
              `evidence source ${source} (${kind}) answers again`,
            );
          }
          return;
        }
        const why = reason ?? outcome;
        failing.set(key, { kind, source, outcome, reason: why, sinceMs: before?.sinceMs ?? at });
        metrics.sourceFailing.set({ kind, source }, 1);
        if (!before)
          log.warn({ kind, source, outcome, reason: why }, `evidence source ${source} (${kind}) is failing`);
      };
    },
    failing: () => [...failing.values()],
  };
}
