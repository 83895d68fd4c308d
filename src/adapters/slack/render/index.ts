// The renderers' public surface: view models in, Block Kit out. No I/O anywhere below.

export { renderAppHome } from "./app-home.js";
export { renderAudit } from "./audit.js";

export { renderDiagnosis, renderEvidenceModal } from "./diagnosis.js";
export { renderDiagnosingAck, renderUsageError } from "./errors.js";
export { renderHelp } from "./help.js";
export { renderHistory } from "./history.js";
export { escapeMrkdwn } from "./limits.js";
export {
  renderApplyModal,
  renderApplyRefusal,
  renderProposal,
} from "./proposal.js";
export { renderStatusCard } from "./status-card.js";
export { renderStatusList } from "./status-list.js";
export { renderVerification } from "./verification.js";
export * from "./view-models.js";
