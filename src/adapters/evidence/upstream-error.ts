// Each upstream API shapes its error body differently; this pulls out the part a person can act on.

import { CodedError } from "../../errors.js";
import { scrubAllForms } from "../../util/secret-forms.js";

export interface UpstreamError {
  message?: string;
  type?: string;
  code?: number | string;
}

const MAX_MESSAGE = 500;

/** Reads an error body from any of our sources; unknown shapes give their first line of text. */
export function describeUpstreamError(body: string): UpstreamError {
  const text = body.trim();
  if (text === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // HTML error pages and plain text: the first line is usually the useful part.
    const firstLine = text
      .replace(/<[^>]*>/g, " ")
      .trim()
      .split(/\r?\n/)[0]
      ?.trim();
    return firstLine ? { message: clip(firstLine) } : {};
  }
  if (!isRecord(parsed)) return {};

  // Iceberg REST: {"error": {"message", "type", "code"}}
  if (isRecord(parsed.error)) {
    const e = parsed.error;
    return {
      message: stringOr(e.message),
      type: stringOr(e.type),
      code: typeof e.code === "number" ? e.code : undefined,
    };
  }
  // Prometheus: {"status":"error","errorType","error"}
  if (parsed.status === "error" && typeof parsed.error === "string") {
    return { message: clip(parsed.error), type: stringOr(parsed.errorType) };
  }
  // Kafka Connect: {"error_code", "message"}
  if ("error_code" in parsed) {
    const code = parsed.error_code;
    return {
      message: stringOr(parsed.message),
      code: typeof code === "number" || typeof code === "string" ? code : undefined,
    };
  }
  // Flink: {"errors": ["...", "<stack trace>"]}
  if (Array.isArray(parsed.errors)) {
    const first = parsed.errors.find((e): e is string => typeof e === "string" && e.trim() !== "");
    return first ? { message: clip(first.split(/\r?\n/)[0] ?? first) } : {};
  }
  // OAuth2: {"error": "invalid_client", "error_description": "..."}
  if (typeof parsed.error === "string") {
    return { message: clip(stringOr(parsed.error_description) ?? parsed.error), type: parsed.error };
  }
  return { message: stringOr(parsed.message) };
}

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringOr(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? clip(value) : undefined;
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

/**
 * An upstream that echoes our token or secret back must not get it into a message: the secrets
 * (as typed or encoded) are taken out of the message and hint. The cause still holds the raw text,
 * so it stays behind.
 */
export function scrubCodedError(error: CodedError, secrets: readonly string[]): CodedError {
  const usable = secrets.filter((s) => s.length >= 4);
  if (usable.length === 0) return error;
  const message = scrubAllForms(error.message, usable);
  const hint = error.hint === undefined ? undefined : scrubAllForms(error.hint, usable);
  if (message === error.message && hint === error.hint) return error;
  return new CodedError(error.code, message, {
    ...(hint === undefined ? {} : { hint }),
    details: error.details,
    retryable: error.retryable,
  });
}
