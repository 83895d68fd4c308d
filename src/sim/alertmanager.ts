// Alertmanager's webhook body (version 4, shape as captured from Alertmanager 0.25): the one
// builder the demo, `dev`, the tests and the benchmarks post alerts with.

export interface SimAlert {
  /** The `table` label; leave out to test an alert without one. */
  table?: string;
  /** More labels (job_name, say), or labels that replace the defaults. */
  labels?: Record<string, string>;
  status?: "firing" | "resolved";
  /** Default: fp + the alert's index, so the same call gives the same fingerprints. */
  fingerprint?: string;
  /** When it started firing (default a minute before `nowMs`). */
  startsAtMs?: number;
  /** More annotations (description, say). */
  annotations?: Record<string, string>;
}

export function alertmanagerBody(alerts: readonly SimAlert[], nowMs: number = Date.now()): string {
  const built = alerts.map((a, i) => {
    const status = a.status ?? "firing";
    return {
      status,
      labels: {
        alertname: "IcebergCommitStalled",
        severity: "critical",
        ...(a.table ? { table: a.table } : {}),
        ...a.labels,
      },
      annotations: { summary: `No successful Iceberg commit for ${a.table ?? "a table"}`, ...a.annotations },
      startsAt: new Date(a.startsAtMs ?? nowMs - 60_000).toISOString(),
      endsAt: status === "resolved" ? new Date(nowMs).toISOString() : "0001-01-01T00:00:00Z",
      generatorURL: "http://127.0.0.1:9090/graph",
      fingerprint: a.fingerprint ?? `fp${i.toString(16).padStart(14, "0")}`,
    };
  });
  const common = built.length === 1 ? built[0]!.labels : { alertname: "IcebergCommitStalled" };
  return JSON.stringify({
    receiver: "iceberg-bot",
    status: built.some((a) => a.status === "firing") ? "firing" : "resolved",
    alerts: built,
    groupLabels: { alertname: "IcebergCommitStalled" },
    commonLabels: common,
    commonAnnotations: {},
    externalURL: "http://127.0.0.1:9093",
    version: "4",
    groupKey: '{}:{alertname="IcebergCommitStalled"}',
    truncatedAlerts: 0,
  });
}
