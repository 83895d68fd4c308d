// Slack canvases as the stand-in answers them: canvases.create takes a title and a markdown
// document_content (optionally tabbed in a channel) and answers a canvas id; a workspace that may
// not create canvases answers as Slack does on a free team (`free_team_not_allowed`). files.info
// answers a shared file's permalink, which a canvas embeds a picture by. files.list lists the
// canvases and shared files of a channel, newest first (`types=canvas`: canvases only).
// canvases.edit takes the canvas id and a list of changes, as Slack does: the whole document
// replaced (no section id), markdown inserted at its start or end, or the title renamed.

import { ApiError } from "./api-error.js";
import type { FileStore } from "./files.js";
import type { MethodContext } from "./methods.js";
import type { StoredCanvas } from "./types.js";

export function canvasMethods(files: FileStore, canvases: StoredCanvas[], allowed: () => boolean) {
  return {
    "canvases.create": (args: Record<string, unknown>) => {
      if (!allowed()) throw new ApiError("free_team_not_allowed");
      let content = args.document_content;
      if (typeof content === "string") {
        try {
          content = JSON.parse(content);
        } catch {
          throw new ApiError("invalid_arguments", ["[ERROR] document_content must be an object"]);
        }
      }
      const doc = content as { type?: unknown; markdown?: unknown } | undefined;
      if (doc !== undefined && (doc.type !== "markdown" || typeof doc.markdown !== "string"))
        throw new ApiError("invalid_arguments", [
          "[ERROR] document_content must be {type: markdown, markdown}",
        ]);
      const id = `F${String(900_000_000 + canvases.length + 1).padStart(10, "0")}`;
      canvases.push({
        id,
        ...(typeof args.title === "string" ? { title: args.title } : {}),
        markdown: typeof doc?.markdown === "string" ? doc.markdown : "",
        ...(typeof args.channel_id === "string" ? { channel: args.channel_id } : {}),
      });
      return { ok: true, canvas_id: id };
    },
    "canvases.edit": (args: Record<string, unknown>) => {
      const canvas = canvases.find((c) => c.id === args.canvas_id);
      if (!canvas) throw new ApiError("canvas_not_found");
      const changes = (typeof args.changes === "string" ? parseJson(args.changes) : args.changes) as unknown;
      if (!Array.isArray(changes) || changes.length === 0)
        throw new ApiError("invalid_arguments", ["[ERROR] changes must be a non-empty array"]);
      for (const change of changes as Array<Record<string, unknown>>) {
        const doc = change.document_content as { type?: unknown; markdown?: unknown } | undefined;
        const markdown =
          doc?.type === "markdown" && typeof doc.markdown === "string" ? doc.markdown : undefined;
        const title = (change.title_content as { markdown?: unknown } | undefined)?.markdown;
        if (change.operation === "rename" && typeof title === "string") canvas.title = title;
        else if (change.section_id !== undefined || markdown === undefined)
          throw new ApiError("invalid_arguments", [
            "[ERROR] this stand-in edits whole documents in markdown",
          ]);
        else if (change.operation === "replace") canvas.markdown = markdown;
        else if (change.operation === "insert_at_start") canvas.markdown = `${markdown}\n${canvas.markdown}`;
        else if (change.operation === "insert_at_end") canvas.markdown = `${canvas.markdown}\n${markdown}`;
        else
          throw new ApiError("invalid_arguments", [`[ERROR] unknown operation ${String(change.operation)}`]);
      }
      return { ok: true };
    },
    "files.list": (args: Record<string, unknown>) => {
      const channel = typeof args.channel === "string" ? args.channel : undefined;
      const types = typeof args.types === "string" ? args.types.split(",") : ["all"];
      const listed = [
        ...(types.includes("all") || types.includes("canvas")
          ? canvases
              .filter((c) => channel === undefined || c.channel === channel)
              .map((c) => ({ id: c.id, title: c.title ?? "", filetype: "canvas" }))
          : []),
        ...(types.includes("all")
          ? files
              .list()
              .filter(
                (f) => f.completed && (channel === undefined || f.shares.some((s) => s.channel === channel)),
              )
              .map((f) => ({ id: f.id, name: f.name, title: f.title ?? f.name, filetype: f.filetype }))
          : []),
      ].reverse();
      return {
        ok: true,
        files: listed,
        paging: { count: listed.length, total: listed.length, page: 1, pages: 1 },
      };
    },
    "files.info": (args: Record<string, unknown>, ctx: MethodContext) => {
      const file = typeof args.file === "string" ? files.get(args.file) : undefined;
      if (file === undefined || !file.completed) throw new ApiError("file_not_found");
      return {
        ok: true,
        file: {
          id: file.id,
          name: file.name,
          title: file.title ?? file.name,
          mimetype: file.mimetype,
          permalink: `${ctx.baseUrl}files/${file.id}/${encodeURIComponent(file.name)}`,
        },
      };
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("invalid_arguments", ["[ERROR] changes must be JSON"]);
  }
}
