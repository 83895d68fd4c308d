// A thread as a person would read it, in plain text: the status card first, replies indented under
// it, buttons as [Apply] [Skip], code blocks kept so statements can still be copied. The demo prints
// this; tests use it to read what people would see without parsing blocks.

import type { SharedFile, SlackStandIn, StoredMessage } from "./types.js";

export interface TranscriptOptions {
  /** "unicode" turns :white_check_mark: into ✅ (default); "codes" leaves shortcodes as typed. */
  emoji?: "unicode" | "codes";
  /** Prefix of reply lines (default four spaces). */
  indent?: string;
  /** Where a shared file can be opened (the demo writes pictures to disk); absent, its name. */
  fileLocation?: (file: SharedFile) => string | undefined;
}

const EMOJI: Record<string, string> = {
  red_circle: "🔴",
  large_yellow_circle: "🟡",
  large_green_circle: "🟢",
  large_blue_circle: "🔵",
  white_circle: "⚪",
  hourglass_flowing_sand: "⏳",
  white_check_mark: "✅",
  warning: "⚠️",
  mag: "🔍",
  gear: "⚙️",
  octagonal_sign: "🛑",
  wrench: "🔧",
  x: "❌",
  clipboard: "📋",
  no_entry: "⛔",
  fast_forward: "⏩",
  leftwards_arrow_with_hook: "↩️",
};

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function decodeEntities(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

function emojify(text: string, mode: "unicode" | "codes"): string {
  if (mode === "codes") return text;
  return text.replace(/:([a-z0-9_+-]+):/g, (whole, name: string) => EMOJI[name] ?? whole);
}

/** Links, mentions and emphasis outside code; entities everywhere; code spans and blocks kept. */
export function mrkdwnToPlain(text: string, emoji: "unicode" | "codes" = "unicode"): string {
  // Code is set aside first so emphasis around it (*`cmd`*) can still be removed as a whole.
  const code: string[] = [];
  const held = text.replace(/```[\s\S]*?```|`[^`\n]*`/g, (whole) => {
    code.push(decodeEntities(whole));
    return `\uE000${code.length - 1}\uE000`;
  });
  const linked = held.replace(/<([^<>]+)>/g, (_whole, inner: string) => {
    const [target = "", label] = inner.split("|");
    if (target.startsWith("@")) return `@${label ?? target.slice(1)}`;
    if (target.startsWith("!subteam^")) return label ?? `@${target.slice(9)}`;
    // A date token reads as its fallback text, as clients without the reader's time zone show it.
    if (target.startsWith("!date^")) return label ?? "";
    if (target.startsWith("!")) return `@${label ?? target.slice(1)}`;
    if (target.startsWith("#")) return `#${label ?? target.slice(1)}`;
    return label === undefined ? target : `${label} (${target})`;
  });
  const plain = linked
    .replace(/(^|[\s(])\*([^*\n]+)\*(?=$|[\s).,:;!?])/gm, "$1$2")
    .replace(/(^|[\s(])_([^_\n]+)_(?=$|[\s).,:;!?])/gm, "$1$2");
  return emojify(decodeEntities(plain), emoji).replace(
    /\uE000(\d+)\uE000/g,
    (_w, i: string) => code[Number(i)] ?? "",
  );
}

function textOf(value: unknown, emoji: "unicode" | "codes"): string {
  if (!isObject(value) || typeof value.text !== "string") return "";
  return value.type === "plain_text" ? emojify(value.text, emoji) : mrkdwnToPlain(value.text, emoji);
}

function elementText(element: unknown, emoji: "unicode" | "codes"): string {
  if (!isObject(element)) return "";
  switch (element.type) {
    case "button":
      return `[${textOf(element.text, emoji)}]`;
    case "image":
      return `[image: ${String(element.alt_text ?? "")}]`;
    case "checkboxes":
    case "radio_buttons":
      return Array.isArray(element.options)
        ? element.options.map((o) => `[ ] ${isObject(o) ? textOf(o.text, emoji) : ""}`).join("\n")
        : "";
    case "plain_text_input":
      return "[____________]";
    default: {
      const placeholder = textOf(element.placeholder, emoji);
      return `[${placeholder === "" ? String(element.type) : placeholder} ▾]`;
    }
  }
}

function richText(value: unknown): string {
  if (Array.isArray(value)) return value.map(richText).join("");
  if (!isObject(value)) return "";
  if (typeof value.text === "string") return value.text;
  if (value.type === "user") return `@${String(value.user_id)}`;
  if (value.type === "link") return String(value.url ?? "");
  return richText(value.elements);
}

function blockText(block: unknown, emoji: "unicode" | "codes"): string {
  if (!isObject(block)) return "";
  switch (block.type) {
    case "header":
      return textOf(block.text, emoji);
    case "section": {
      const parts = [textOf(block.text, emoji)];
      if (Array.isArray(block.fields)) parts.push(...block.fields.map((f) => textOf(f, emoji)));
      if (block.accessory !== undefined) parts.push(elementText(block.accessory, emoji));
      return parts.filter((p) => p !== "").join("\n");
    }
    case "context":
      return Array.isArray(block.elements)
        ? block.elements
            .map((e) => (isObject(e) && e.type === "image" ? "" : textOf(e, emoji)))
            .filter((t) => t !== "")
            .join(" · ")
        : "";
    case "actions":
      return Array.isArray(block.elements) ? block.elements.map((e) => elementText(e, emoji)).join(" ") : "";
    case "divider":
      return "────────";
    case "input":
      return `${textOf(block.label, emoji)}: ${elementText(block.element, emoji)}`;
    case "image":
      return `[image: ${String(block.alt_text ?? "")}]`;
    case "markdown":
      return typeof block.text === "string" ? block.text : "";
    case "rich_text":
      return richText(block.elements);
    default:
      return "";
  }
}

/** One message as text: its blocks when it has any, else its notification text. */
export function messageText(
  message: { text: string; blocks: unknown[] },
  options: Pick<TranscriptOptions, "emoji"> = {},
): string {
  const emoji = options.emoji ?? "unicode";
  if (message.blocks.length === 0) return mrkdwnToPlain(message.text, emoji);
  return message.blocks
    .map((b) => blockText(b, emoji))
    .filter((t) => t !== "")
    .join("\n");
}

function edited(count: number): string {
  return count === 0 ? "" : `\n(edited ${count} time${count === 1 ? "" : "s"})`;
}

/** The thread rooted at ts in channel, root first and replies indented; empty when there is none. */
export function transcript(
  source: Pick<SlackStandIn, "thread">,
  channel: string,
  ts: string,
  options: TranscriptOptions = {},
): string {
  const indent = options.indent ?? "    ";
  const [root, ...replies] = source.thread(channel, ts);
  if (root === undefined) return "";
  const parts = [`${messageText(root, options)}${edited(root.edits)}${fileLines(root, options)}`];
  for (const reply of replies) {
    const body = `${messageText(reply, options)}${edited(reply.edits)}${fileLines(reply, options)}`.replace(
      /^\n/,
      "",
    );
    parts.push(
      body
        .split("\n")
        .map((line) => (line === "" ? "" : `${indent}${line}`))
        .join("\n"),
    );
  }
  return `${parts.join("\n\n")}\n`;
}

function fileLines(message: StoredMessage, options: TranscriptOptions): string {
  if (!message.files?.length) return "";
  const lines = message.files.map((file) => {
    const kind = file.mimetype.startsWith("image/") ? "image" : "file";
    const where = options.fileLocation?.(file) ?? file.name;
    return `[${kind}: ${file.title} → ${where}]`;
  });
  return `\n${lines.join("\n")}`;
}
