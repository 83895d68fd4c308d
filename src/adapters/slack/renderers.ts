// The renderers this adapter uses, as one injectable set: the composition root passes the real
// Block Kit renderers from ./render, and every caller stays independent of their file layout.

import type { HomeView, ModalView, SlackMessage } from "./render/block-kit.js";
import type {
  AppHomeView,
  AuditReport,
  DiagnosisOptions,
  HistoryView,
  Report,
  StatusCardView,
  StatusListView,
  UsageErrorView,
} from "./render/view-models.js";

export interface Renderers {
  statusCard(view: StatusCardView): SlackMessage;
  diagnosis(report: Report, options?: DiagnosisOptions): SlackMessage;
  /** The modal behind "Show all evidence". */
  evidenceModal(report: Report): ModalView;
  diagnosingAck(table: string): SlackMessage;
  audit(report: AuditReport): SlackMessage;
  statusList(view: StatusListView): SlackMessage;
  history(view: HistoryView): SlackMessage;
  help(): SlackMessage;
  usageError(view: UsageErrorView): SlackMessage;
  appHome(view: AppHomeView): HomeView;
}
