// Small builders for the blocks we use, each applying its Slack limit so callers cannot forget.

import type { KnownBlock, SectionBlock } from "./block-kit.js";
import { clipPlain, LIMITS, truncateText } from "./limits.js";

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

export function divider(): KnownBlock {
  return { type: "divider" };
}
