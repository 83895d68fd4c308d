// Small builders for the blocks we use, each applying its Slack limit so callers cannot forget.

import { groupDigits } from "../../../core/plural.js";
import type { Button, KnownBlock, ModalView, SectionBlock } from "./block-kit.js";
import { clipPlain, LIMITS, packLines, truncateText } from "./limits.js";

export function plain(text: string): { type: "plain_text"; text: string } {
  return { type: "plain_text", text };
}

export function section(text: string, blockId?: string): SectionBlock {
  return {
    type: "section",
    text: { type: "mrkdwn", text: truncateText(text, LIMITS.sectionText) },
    ...(blockId === undefined ? {} : { block_id: blockId }),
  };
}

export function header(text: string): KnownBlock {
  return {
    type: "header",
    text: { type: "plain_text", text: clipPlain(text, LIMITS.headerText), emoji: true },
  };
}

export function context(...texts: string[]): KnownBlock {
  const elements = texts
    .filter((t) => t !== "")
    .slice(0, LIMITS.contextElements)
    .map((t) => ({ type: "mrkdwn" as const, text: truncateText(t, LIMITS.sectionText) }));
  return { type: "context", elements };
}

/** A final context block saying how much was left out. */
export function andMore(count: number, what = "more"): KnownBlock {
  return context(`… and ${groupDigits(count)} ${what}`);
}

/** Keeps at most max blocks; when it must drop some, the last kept block says how many. */
export function capBlocks(blocks: KnownBlock[], max: number = LIMITS.messageBlocks): KnownBlock[] {
  if (blocks.length <= max) return blocks;
  const kept = blocks.slice(0, max - 1);
  return [...kept, andMore(blocks.length - kept.length)];
}

/**
 * Whole lines packed into at most maxSections sections (the first opened by heading), then
 * "… and N more" (in `more`'s words) for the lines left out.
 */
export function packedSections(
  lines: string[],
  options: { maxSections: number; more?: string; heading?: string },
): KnownBlock[] {
  const packed = packLines(lines, { maxSections: options.maxSections });
  const blocks: KnownBlock[] = packed.texts.map((t, i) =>
    section(i === 0 && options.heading ? `${options.heading}\n${t}` : t),
  );
  if (packed.used < lines.length) blocks.push(andMore(lines.length - packed.used, options.more));
  return blocks;
}

export function divider(): KnownBlock {
  return { type: "divider" };
}

/** A button whose value the listener of actionId reads back. */
export function button(text: string, actionId: string, value: string, style?: "primary" | "danger"): Button {
  return {
    type: "button",
    text: plain(clipPlain(text, LIMITS.buttonText)),
    action_id: actionId,
    value,
    ...(style === undefined ? {} : { style }),
  };
}

export function actions(elements: Button[], blockId?: string): KnownBlock {
  return { type: "actions", ...(blockId === undefined ? {} : { block_id: blockId }), elements };
}

/** A modal with its title cut to Slack's limit and its close button named. */
export function modal(
  title: string,
  blocks: KnownBlock[],
  fields: Omit<Partial<ModalView>, "title" | "close" | "blocks"> = {},
  close = "Close",
): ModalView {
  return {
    type: "modal",
    ...fields,
    title: plain(clipPlain(title, LIMITS.modalTitle)),
    close: plain(close),
    blocks,
  };
}
