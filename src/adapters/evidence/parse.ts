// The edge where raw bodies become typed values: bad JSON and schema misses are coded errors that
// name the field, so a person can see which upstream answer was wrong.

import type { z } from "zod";
import { CodedError, ErrorCode } from "../../errors.js";
import { CALLEE_WORDS, type Callee } from "./http-errors.js";

export interface BodyContext {
  source: Callee;
  /** Method and pathname, e.g. "GET /jobs/overview". */
  what: string;
}

export function parseJsonText(text: string, ctx: BodyContext): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const sample = text.trim().slice(0, 40).replace(/\s+/g, " ");
    return throwMalformed(
      ctx,
      text.trim() === ""
        ? "an empty body where JSON was expected"
        : `a body that is not JSON or was cut short (starts with "${sample}")`,
      { reason: "not-json" },
      error,
    );
  }
}

export function parseWithSchema<S extends z.ZodType>(
  schema: S,
  value: unknown,
  ctx: BodyContext,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 3).map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join(".") : "(root)";
    return `${field}: ${issue.message}`;
  });
  const first = result.error.issues[0];
  return throwMalformed(ctx, `an answer that does not match the expected shape (${issues.join("; ")})`, {
    reason: "schema",
    field: first ? first.path.join(".") : undefined,
  });
}

function throwMalformed(
  ctx: BodyContext,
  what: string,
  extra: Record<string, unknown>,
  cause?: unknown,
): never {
  throw new CodedError(
    ErrorCode.SourceMalformed,
    `${CALLEE_WORDS[ctx.source]} sent ${what} for ${ctx.what}`,
    {
      hint: "Check that the URL points at the right API and that its version is supported.",
      details: { source: ctx.source, request: ctx.what, ...extra },
      cause,
    },
  );
}
