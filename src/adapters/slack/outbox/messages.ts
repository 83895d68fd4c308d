// What an outbox entry shows in a thread or a channel, as views: the shape both the delivery
// kinds (deliveries.ts) and the views that render them (../views.ts) read.

import type { ProposalNote } from "../../../core/remediation/walk.js";
import type { AuditReport } from "../../../core/report/schema.js";
import type { Digest } from "../../../core/sweep/digest.js";
import type { RemediationNote } from "../../../services/ports.js";
import type { ProposalView, VerificationView } from "../../../services/view-models.js";

/** A walk's thread message, as the view it shows. */
export type OutboxMessage =
  | { kind: "proposal"; view: ProposalView; note?: ProposalNote; withButtons?: boolean }
  | { kind: "verification"; view: VerificationView }
  | { kind: "note"; note: RemediationNote }
  /** Plain text that may quote upstream words: shown as typed, never as markup. */
  | { kind: "text"; text: string };

/** A message of no incident, top-level in a channel or in a thread the entry names. */
export type ChannelMessage =
  /** The catalog sweep's digest. */
  | { kind: "digest"; digest: Digest }
  /** An audit asked for from a digest line, in the digest's thread. */
  | { kind: "audit"; report: AuditReport }
  /** Plain words, shown as written, never as markup. */
  | { kind: "text"; text: string };
