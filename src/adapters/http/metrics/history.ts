// Incidents by table class and cause on /metrics, read from the incident history at scrape time
// (every process sees the same numbers, whichever worker closed the incident). Labels come from
// closed sets (writer kind, triage finding, root cause), so the series are bounded: at most
// 3 x 11 x 10 whatever the number of tables.

import type { Registry } from "prom-client";
import { countByCause } from "../../../core/history/fleet.js";
import type { IncidentHistory } from "../../../core/history/record.js";
import { gauge, SCRAPE_READ_MS, within } from "./registry.js";

export function registerHistoryMetrics(
  registry: Registry,
  source: { all(): Promise<IncidentHistory[]> },
): void {
  gauge(
    registry,
    {
      name: "iceberg_bot_incidents",
      help: "Closed incidents within retention.resolvedDays, by table class (the writer's kind) and cause (triage finding and root cause).",
      labelNames: ["table_class", "triage", "root_cause"],
    },
    async (g) => {
      g.reset();
      const histories = await within(SCRAPE_READ_MS, () => source.all(), [] as IncidentHistory[]);
      for (const c of countByCause(histories))
        g.set({ table_class: c.tableClass, triage: c.triage, root_cause: c.rootCause }, c.count);
    },
  );
}
