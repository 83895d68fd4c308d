// Autopilot on /metrics: its switch, the decisions this process made, and shadow mode's agreement
// per step (read from Redis at scrape time), so a team turns it on with evidence.

import { Counter, type Registry } from "prom-client";
import type { SwitchState } from "../../../core/autopilot/decide.js";
import type { AutopilotStorePort } from "../../../services/autopilot/ports.js";
import { gauge, perScrape, SCRAPE_READ_MS, within } from "./registry.js";

const SWITCH_STATES: readonly SwitchState[] = ["on", "off", "self-stopped"];

export function registerAutopilotMetrics(
  registry: Registry,
  store: Pick<AutopilotStorePort, "switchState" | "shadowTally">,
): (outcome: "act" | "refuse", reason: string, shadow: boolean) => void {
  const decisions = new Counter({
    name: "iceberg_bot_autopilot_decisions_total",
    help: "Autopilot decisions on proposed steps: act (the policy line) or refuse (the reason), in shadow or on mode.",
    labelNames: ["outcome", "reason", "mode"] as const,
    registers: [registry],
  });
  gauge(
    registry,
    {
      name: "iceberg_bot_autopilot_switch",
      help: "1 for the autopilot kill switch's current state (on, off, self-stopped), shared by every process.",
      labelNames: ["state"],
    },
    async (g) => {
      const state = await within(SCRAPE_READ_MS, () => store.switchState(), undefined);
      if (state === undefined) return;
      for (const s of SWITCH_STATES) g.set({ state: s }, s === state ? 1 : 0);
    },
  );
  // Both shadow gauges show the tally of one read.
  const tally = perScrape(() => store.shadowTally(), []);
  gauge(
    registry,
    {
      name: "iceberg_bot_autopilot_shadow_incidents",
      help: "Incidents shadow mode judged per step: would (it would have applied the step), matched (people applied it first), fixed (the step fixed it).",
      labelNames: ["step", "judged"],
    },
    async (g) => {
      const rows = await tally();
      g.reset();
      for (const row of rows) {
        g.set({ step: row.stepId, judged: "would" }, row.would);
        g.set({ step: row.stepId, judged: "matched" }, row.matched);
        g.set({ step: row.stepId, judged: "fixed" }, row.fixed);
      }
    },
  );
  gauge(
    registry,
    {
      name: "iceberg_bot_autopilot_shadow_agreement_ratio",
      help: "Share of judged incidents where people applied first the step shadow mode would have applied.",
      labelNames: ["step"],
    },
    async (g) => {
      const rows = await tally();
      g.reset();
      for (const row of rows) if (row.would > 0) g.set({ step: row.stepId }, row.matched / row.would);
    },
  );
  return (outcome, reason, shadow) => decisions.inc({ outcome, reason, mode: shadow ? "shadow" : "on" });
}
