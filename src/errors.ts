// Coded errors: every failure that reaches a person or a log carries a stable code and a hint
// that says what to check. Top-level handlers call asCodedError() so nothing escapes uncoded.

export enum ErrorCode {
  ConfigInvalid = "config_invalid",
  UsageInvalid = "usage_invalid",
  TableNameInvalid = "table_name_invalid",
  TableNotFound = "table_not_found",
  TableAmbiguous = "table_ambiguous",
  SourceUnreachable = "source_unreachable",
  SourceTimeout = "source_timeout",
  SourceHttpStatus = "source_http_status",
  SourceMalformed = "source_malformed",
  SourceTooLarge = "source_too_large",
  SourceRetryable = "source_retryable",
  AuthFailed = "auth_failed",
  /** The Kubernetes API refused a verb on a resource in a namespace: the RBAC lacks it. */
  KubernetesForbidden = "kubernetes_forbidden",
  NoEvidence = "no_evidence",
  PlaybookInvalid = "playbook_invalid",
  WebhookInvalid = "webhook_invalid",
  WebhookUnauthorized = "webhook_unauthorized",
  NotPermitted = "not_permitted",
  ChangeInProgress = "change_in_progress",
  ChangeOutcomeUnknown = "change_outcome_unknown",
  SlackApi = "slack_api",
  /** A sweep reached one of its limits (sweep.budget) and stopped walking. */
  BudgetExhausted = "budget_exhausted",
  /** A record in Redis that this release cannot read (validation failed, or a format too old). */
  StoredRecordInvalid = "stored_record_invalid",
  Internal = "internal",
}

export interface CodedErrorOptions {
  /** What the person should check or do next. */
  hint?: string;
  /** Structured details safe to log (never secrets). */
  details?: Record<string, unknown>;
  /** True when trying again later can succeed (timeouts, 5xx, a Connect rebalance). */
  retryable?: boolean;
  cause?: unknown;
}

export class CodedError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly details?: Record<string, unknown>;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: CodedErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CodedError";
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
    this.retryable = options.retryable ?? false;
  }
}

export function isCodedError(value: unknown, code?: ErrorCode): value is CodedError {
  return value instanceof CodedError && (code === undefined || value.code === code);
}

/** What `read` resolves to, or `absent` when the source answered 404: the thing is not there. */
export async function unless404<T, A>(read: Promise<T>, absent: A): Promise<T | A> {
  try {
    return await read;
  } catch (error) {
    if (isCodedError(error, ErrorCode.SourceHttpStatus) && error.details?.status === 404) return absent;
    throw error;
  }
}

export function asCodedError(value: unknown): CodedError {
  if (value instanceof CodedError) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new CodedError(ErrorCode.Internal, message, { cause: value });
}
