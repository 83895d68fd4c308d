// Decodes a Web API request body the way Slack does: form-encoded (what WebClient sends, with
// objects such as blocks JSON-encoded inside fields) or JSON (what curl users and some SDKs send).

import type { IncomingMessage } from "node:http";

/** Form fields Slack parses as JSON when they arrive as strings. */
const JSON_FIELDS = new Set(["blocks", "attachments", "view", "metadata", "unfurls", "user_auth_blocks"]);

const MAX_BODY_BYTES = 1_000_000;

export class BodyError extends Error {}

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new BodyError("request_too_large");
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Returns the arguments with JSON fields decoded. A JSON field that does not parse is left as the
 * raw string so the method's own checks answer the matching Slack error (invalid_blocks_format…).
 */
export function decodeArgs(contentType: string | undefined, raw: string): Record<string, unknown> {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (raw.trim() === "") return {};
  if (type === "application/json") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new BodyError("invalid_json");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new BodyError("invalid_json");
    }
    return { ...(parsed as Record<string, unknown>) };
  }
  if (type === "application/x-www-form-urlencoded" || type === "") {
    const args: Record<string, unknown> = {};
    for (const [key, value] of new URLSearchParams(raw)) {
      args[key] = JSON_FIELDS.has(key) ? parseJsonField(value) : value;
    }
    return args;
  }
  throw new BodyError("invalid_form_data");
}

function parseJsonField(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
