// During a sweep every table asks Flink for its job list and Kafka Connect for its connectors,
// which are the same answers for all of them: each worker keeps them for a short while instead of
// spending the sources' request budget on thousands of identical calls.

import type { FlinkJobSummary } from "../../core/evidence/model.js";
import type { ConnectorInfo, EvidencePorts } from "../ports.js";

export function withSharedListings(
  ports: EvidencePorts,
  ttlMs: number,
  now: () => number = Date.now,
): EvidencePorts {
  const out: EvidencePorts = { ...ports };
  const flink = ports.flink;
  if (flink) {
    const jobs = memo(() => flink.listJobs(), ttlMs, now);
    out.flink = {
      listJobs: jobs,
      getJobEvidence: (id, table, source) => flink.getJobEvidence(id, table, source),
    };
  }
  const connect = ports.connect;
  if (connect) {
    const connectors = memo(() => connect.listConnectors(), ttlMs, now);
    out.connect = {
      listConnectors: connectors,
      getConnectorEvidence: (name, cluster) => connect.getConnectorEvidence(name, cluster),
      restart: (name, options, cluster) => connect.restart(name, options, cluster),
      updateConfig: (name, config, cluster) => connect.updateConfig(name, config, cluster),
    };
  }
  return out;
}

/** One call in flight at a time; a failure is not kept, so the next caller tries again. */
function memo<T extends FlinkJobSummary[] | ConnectorInfo[]>(
  load: () => Promise<T>,
  ttlMs: number,
  now: () => number,
) {
  let value: { at: number; promise: Promise<T> } | undefined;
  return (): Promise<T> => {
    const t = now();
    if (value && t - value.at < ttlMs) return value.promise;
    const promise = load();
    const entry = { at: t, promise };
    value = entry;
    promise.catch(() => {
      if (value === entry) value = undefined;
    });
    return promise;
  };
}
