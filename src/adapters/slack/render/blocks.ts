// Small builders for the blocks we use, each applying its Slack limit so callers cannot forget.

import { groupDigits } from "../../../core/plural.js";
import type { KnownBlock, SectionBlock } from "./block-kit.js";
import { clipPlain, LIMITS, packLines, truncateText } from "./limits.js";

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
  if (packed.used < lines.length)
    blocks.push(context(`… and ${groupDigits(lines.length - packed.used)} ${options.more ?? "more"}`));
  return blocks;
}

export function divider(): KnownBlock {
  return { type: "divider" };
}
