// The production renderer set: the Block Kit renderers from ./render.

import {
  renderAppHome,
  renderAudit,
  renderDiagnosingAck,
  renderDiagnosis,
  renderEvidenceModal,
  renderHelp,
  renderHistory,
  renderStatusCard,
  renderStatusList,
  renderUsageError,
} from "./render/index.js";
import type { Renderers } from "./renderers.js";

export const defaultRenderers: Renderers = {
  statusCard: renderStatusCard,
  diagnosis: (report, options) => renderDiagnosis(report, options),
  evidenceModal: renderEvidenceModal,
  diagnosingAck: renderDiagnosingAck,
  audit: renderAudit,
  statusList: renderStatusList,
  help: renderHelp,
  history: renderHistory,
  usageError: renderUsageError,
  appHome: renderAppHome,
};
