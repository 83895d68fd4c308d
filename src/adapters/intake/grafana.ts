// Grafana-managed alerting's webhook: the Alertmanager v4 body plus Grafana's own fields
// (orgId, state, title, message; per alert values, dashboardURL, panelURL, silenceURL).

import { z } from "zod";
import { AlertSchema } from "./alertmanager.js";

const GrafanaAlertSchema = AlertSchema.extend({
  values: z.record(z.string(), z.number().nullable()).nullable().optional(),
  valueString: z.string().optional(),
  dashboardURL: z.string().optional(),
  panelURL: z.string().optional(),
  silenceURL: z.string().optional(),
});

export const GrafanaBodySchema = z.object({
  // Grafana sends version "1" in recent releases; older ones sent none. Either is accepted.
  version: z.string().optional(),
  status: z.enum(["firing", "resolved"]),
  orgId: z.number().int().optional(),
  state: z.string().optional(),
  title: z.string().optional(),
  message: z.string().optional(),
  receiver: z.string().optional(),
  groupKey: z.string().optional(),
  alerts: z.array(GrafanaAlertSchema).max(1000),
});
