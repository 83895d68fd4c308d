// Slack's file upload flow as the stand-in answers it: files.getUploadURLExternal hands out an
// upload URL for a declared name and length, the bytes are POSTed there, and
// files.completeUploadExternal shares the uploaded files in a channel or a thread. What Slack
// refuses, this refuses too: a missing name or length, bytes that do not match the declared length,
// completing a file that was never uploaded or twice, a thread_ts without a channel.

import type { IncomingMessage } from "node:http";
import { ApiError } from "./api-error.js";
import type { MethodContext } from "./methods.js";
import type { StoredFile } from "./types.js";

/** Slack's per-file limit is 1 GB; the stand-in keeps files in memory, so it takes less. */
const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

export class FileStore {
  private readonly files = new Map<string, StoredFile>();
  private counter = 0;

  create(name: string, length: number, altText?: string): StoredFile {
    const id = `F${String(++this.counter).padStart(10, "0")}`;
    const file: StoredFile = {
      id,
      name,
      length,
      ...(altText ? { altText } : {}),
      shares: [],
      completed: false,
    };
    this.files.set(id, file);
    return file;
  }

  get(id: string): StoredFile | undefined {
    return this.files.get(id);
  }

  list(): StoredFile[] {
    return [...this.files.values()];
  }
}

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function detect(bytes: Uint8Array): { mimetype: string; filetype: string } {
  if (PNG_MAGIC.every((b, i) => bytes[i] === b)) return { mimetype: "image/png", filetype: "png" };
  if (bytes[0] === 0x3c) return { mimetype: "text/plain", filetype: "text" };
  return { mimetype: "application/octet-stream", filetype: "binary" };
}

function positiveInt(value: unknown): number | undefined {
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

export function fileMethods(files: FileStore) {
  return {
    "files.getUploadURLExternal": (args: Record<string, unknown>, ctx: MethodContext) => {
      const filename = args.filename;
      if (typeof filename !== "string" || filename.trim() === "") {
        throw new ApiError("invalid_arguments", ["[ERROR] missing required field: filename"]);
      }
      if (args.length === undefined) {
        throw new ApiError("invalid_arguments", ["[ERROR] missing required field: length"]);
      }
      const length = positiveInt(args.length);
      if (length === undefined) throw new ApiError("invalid_length");
      if (length > MAX_UPLOAD_BYTES) throw new ApiError("file_too_large");
      const altText = typeof args.alt_text === "string" ? args.alt_text : undefined;
      const file = files.create(filename, length, altText);
      return { ok: true, upload_url: `${ctx.baseUrl}upload/${file.id}`, file_id: file.id };
    },

    "files.completeUploadExternal": (args: Record<string, unknown>, ctx: MethodContext) => {
      let list = args.files;
      if (typeof list === "string") {
        try {
          list = JSON.parse(list);
        } catch {
          throw new ApiError("invalid_arguments", ["[ERROR] files must be a JSON array"]);
        }
      }
      if (!Array.isArray(list) || list.length === 0) {
        throw new ApiError("invalid_arguments", ["[ERROR] missing required field: files"]);
      }
      const channel =
        typeof args.channel_id === "string" && args.channel_id !== "" ? args.channel_id : undefined;
      const threadTs =
        typeof args.thread_ts === "string" && args.thread_ts !== "" ? args.thread_ts : undefined;
      if (threadTs !== undefined && channel === undefined) {
        throw new ApiError("invalid_arguments", ["[ERROR] thread_ts requires channel_id"]);
      }
      if (channel !== undefined && ctx.channels !== undefined && !ctx.channels.has(channel)) {
        throw new ApiError("channel_not_found");
      }
      let root: string | undefined;
      if (threadTs !== undefined && channel !== undefined) {
        if (!/^\d+\.\d{6}$/.test(threadTs)) throw new ApiError("invalid_thread_ts");
        const parent = ctx.store.get(channel, threadTs);
        if (parent === undefined || parent.ephemeralUser !== undefined)
          throw new ApiError("thread_not_found");
        root = parent.thread_ts ?? parent.ts;
      }
      const chosen: StoredFile[] = [];
      for (const entry of list) {
        const id = (entry as { id?: unknown }).id;
        const file = typeof id === "string" ? files.get(id) : undefined;
        // Slack answers the same way for an unknown id and for a file whose bytes never arrived.
        if (file === undefined || file.bytes === undefined || file.completed)
          throw new ApiError("file_not_found");
        const title = (entry as { title?: unknown }).title;
        if (typeof title === "string") file.title = title;
        chosen.push(file);
      }
      const comment = typeof args.initial_comment === "string" ? args.initial_comment : "";
      const shared: Array<{ channel: string; ts: string; thread_ts?: string }> = [];
      if (channel !== undefined) {
        const message = ctx.store.add({
          channel,
          ts: ctx.store.nextTs(),
          ...(root === undefined ? {} : { thread_ts: root }),
          text: comment,
          blocks: [],
          user: ctx.botUserId,
          files: chosen.map((f) => ({
            id: f.id,
            name: f.name,
            title: f.title ?? f.name,
            mimetype: f.mimetype ?? "",
          })),
        });
        shared.push({ channel, ts: message.ts, ...(root === undefined ? {} : { thread_ts: root }) });
      }
      for (const file of chosen) {
        file.completed = true;
        file.shares.push(...shared);
      }
      return {
        ok: true,
        files: chosen.map((f) => ({
          id: f.id,
          name: f.name,
          title: f.title ?? f.name,
          mimetype: f.mimetype,
          filetype: f.filetype,
          size: f.bytes?.length ?? 0,
          permalink: `${ctx.baseUrl}files/${f.id}/${encodeURIComponent(f.name)}`,
        })),
      };
    },
  };
}

/** The POST to an upload URL: raw bytes (or one multipart part), checked against the declared length. */
export async function receiveUpload(
  files: FileStore,
  id: string,
  request: IncomingMessage,
): Promise<{ status: number; text: string }> {
  const file = files.get(id);
  if (file === undefined || file.completed) return { status: 404, text: "file not found" };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_UPLOAD_BYTES) return { status: 413, text: "request too large" };
    chunks.push(buffer);
  }
  const contentType = request.headers["content-type"] ?? "";
  let bytes: Uint8Array = Buffer.concat(chunks);
  if (contentType.startsWith("multipart/form-data")) {
    const part = firstPart(Buffer.from(bytes), contentType);
    if (part === undefined) return { status: 400, text: "malformed multipart body" };
    bytes = part;
  }
  if (bytes.length !== file.length) {
    return { status: 400, text: `size mismatch: declared ${file.length} bytes, received ${bytes.length}` };
  }
  const detected = detect(bytes);
  // A declared image type must match what the bytes are.
  if (contentType.startsWith("image/") && !contentType.startsWith(detected.mimetype)) {
    return {
      status: 400,
      text: `content type ${contentType} does not match the file (${detected.mimetype})`,
    };
  }
  file.bytes = bytes;
  file.contentType = contentType;
  file.mimetype = detected.mimetype;
  file.filetype = detected.filetype;
  return { status: 200, text: `OK - ${bytes.length}` };
}

function firstPart(body: Buffer, contentType: string): Uint8Array | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  const mark = boundary?.[1] ?? boundary?.[2];
  if (!mark) return undefined;
  const delimiter = Buffer.from(`--${mark}`);
  const start = body.indexOf(delimiter);
  if (start < 0) return undefined;
  const headersEnd = body.indexOf("\r\n\r\n", start);
  if (headersEnd < 0) return undefined;
  const end = body.indexOf(Buffer.from(`\r\n--${mark}`), headersEnd + 4);
  if (end < 0) return undefined;
  return body.subarray(headersEnd + 4, end);
}
