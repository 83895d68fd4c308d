// The production renderer set: the Block Kit renderers from ./render.

import {
  renderAppHome,
  renderAudit,
  renderDiagnosingAck,
  renderDiagnosis,
  renderHelp,
  renderHistory,
  renderStatusCard,
  renderStatusList,
  renderUsageError,
} from "./render/index.js";
import type { Renderers } from "./renderers.js";

export const defaultRenderers: Renderers = {
  statusCard: renderStatusCard,
  diagnosis: (report) => renderDiagnosis(report),
  diagnosingAck: renderDiagnosingAck,
  audit: renderAudit,
  statusList: renderStatusList,
  help: renderHelp,
  history: renderHistory,
  usageError: renderUsageError,
  appHome: renderAppHome,
};
