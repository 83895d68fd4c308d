// The renderers' public surface: view models in, Block Kit out. No I/O anywhere below.

export { ACTION_IDS, APPLY_MODAL, decodeActionValue, encodeActionValue } from "./action-value.js";
export { renderAppHome } from "./app-home.js";
export { renderAudit } from "./audit.js";
export type { HomeView, KnownBlock, ModalView, SlackMessage } from "./block-kit.js";
export { renderDiagnosis, renderEvidenceModal, SHOW_EVIDENCE_ACTION } from "./diagnosis.js";
export { renderDiagnosingAck, renderUsageError } from "./errors.js";
export { renderHelp } from "./help.js";
export { renderHistory } from "./history.js";
export { capBlocks, escapeMrkdwn, LIMITS, truncateText } from "./limits.js";
export {
  canApply,
  renderApplyModal,
  renderApplyRefusal,
  renderProposal,
  renderRevertButton,
} from "./proposal.js";
export { renderStatusCard, statusCardBlocks } from "./status-card.js";
export { renderStatusList } from "./status-list.js";
export { checkLine, renderVerification } from "./verification.js";
export * from "./view-models.js";
