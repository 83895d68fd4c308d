// Exit codes are a public contract (DESIGN.md): scripts and CI branch on them.

import { type CodedError, ErrorCode } from "../errors.js";

export const ExitCode = {
  /** Healthy, or the command did what was asked. */
  Ok: 0,
  /** Something needs action (an unhealthy table, a failing audit check, lint problems). */
  NeedsAction: 1,
  /** Bad usage or configuration, an unknown or invalid table name. */
  Usage: 2,
  /** No evidence source answered. */
  NoEvidence: 3,
  /** A bug in iceberg-bot (an unexpected failure); 70 is EX_SOFTWARE in sysexits.h. */
  Bug: 70,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

const USAGE_ERRORS = new Set<ErrorCode>([
  ErrorCode.UsageInvalid,
  ErrorCode.ConfigInvalid,
  ErrorCode.TableNameInvalid,
  ErrorCode.TableNotFound,
  ErrorCode.TableAmbiguous,
  ErrorCode.AuthFailed,
  ErrorCode.KubernetesForbidden,
  ErrorCode.PlaybookInvalid,
]);

const SOURCE_ERRORS = new Set<ErrorCode>([
  ErrorCode.NoEvidence,
  ErrorCode.SourceUnreachable,
  ErrorCode.SourceTimeout,
  ErrorCode.SourceHttpStatus,
  ErrorCode.SourceMalformed,
  ErrorCode.SourceTooLarge,
  ErrorCode.SourceRetryable,
]);

export function exitCodeFor(error: CodedError): ExitCodeValue {
  if (USAGE_ERRORS.has(error.code)) return ExitCode.Usage;
  if (SOURCE_ERRORS.has(error.code)) return ExitCode.NoEvidence;
  // An uncoded failure is a bug of ours, told apart from "needs action" so scripts do not act on it.
  if (error.code === ErrorCode.Internal) return ExitCode.Bug;
  // Coded outcomes that are not usage or sources (a change in progress, Slack refusing) need action.
  return ExitCode.NeedsAction;
}
