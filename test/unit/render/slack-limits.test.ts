import { describe, expect, it } from "vitest";
import type { KnownBlock } from "../../../src/adapters/slack/render/block-kit.js";
import { capBlocks } from "../../../src/adapters/slack/render/blocks.js";
import {
  clipPlain,
  escapeCode,
  escapeMrkdwn,
  packLines,
  truncateText,
} from "../../../src/adapters/slack/render/limits.js";
import { shortId } from "../../../src/adapters/slack/render/verification.js";
import { groupDigits } from "../../../src/core/plural.js";

const SUFFIX = /\n… \(([\d,]+) more characters\)$/;

function keptAndCount(result: string): { kept: string; more: number } {
  const match = SUFFIX.exec(result);
  expect(match).not.toBeNull();
  return { kept: result.slice(0, match!.index), more: Number(match![1]!.replace(/,/g, "")) };
}

describe("escapeMrkdwn", () => {
  it("neutralises mentions, links and entities from outside text", () => {
    expect(escapeMrkdwn("<!channel> & <https://evil.example|click> <@U123>")).toBe(
      "&lt;!channel&gt; &amp; &lt;https[:]//evil[.]example|click&gt; &lt;@U123&gt;",
    );
  });

  it("leaves ordinary text alone and keeps code spans closed", () => {
    expect(escapeMrkdwn("db.events: 4 → 10")).toBe("db.events: 4 → 10");
    expect(escapeCode("a`b")).toBe("a'b");
  });
});

describe("truncateText", () => {
  it("returns short text unchanged", () => {
    expect(truncateText("short", 3000)).toBe("short");
  });

  it("cuts at the limit and counts exactly what was left out", () => {
    const text = "x".repeat(5000);
    const result = truncateText(text, 3000);
    expect(result.length).toBeLessThanOrEqual(3000);
    const { kept, more } = keptAndCount(result);
    expect(kept).toBe(text.slice(0, kept.length));
    expect(kept.length + more).toBe(5000);
    expect(result).toContain("more characters)");
  });

  it("never splits an escape, a link or a surrogate pair", () => {
    const entities = truncateText(`${"a".repeat(2960)}${"&amp;".repeat(100)}`, 3000);
    const { kept } = keptAndCount(entities);
    expect(
      kept
        .split("&")
        .slice(1)
        .every((part) => part.startsWith("amp;")),
    ).toBe(true);

    const link = truncateText(
      `${"a".repeat(2950)}<https://example.com/a/very/long/path|label> tail ${"b".repeat(100)}`,
      3000,
    );
    expect(keptAndCount(link).kept.endsWith("a")).toBe(true);

    const emoji = truncateText("🧊".repeat(2000), 3000);
    const cut = keptAndCount(emoji).kept;
    expect(cut.length % 2).toBe(0);
  });

  it("closes a code block it cut open", () => {
    const result = truncateText(`intro\n\`\`\`${"s".repeat(4000)}\`\`\``, 3000);
    expect(result.length).toBeLessThanOrEqual(3000);
    expect((result.match(/```/g) ?? []).length % 2).toBe(0);
  });
});

describe("capBlocks and packLines", () => {
  const section = (n: number): KnownBlock => ({ type: "section", text: { type: "mrkdwn", text: `b${n}` } });

  it("keeps 50 blocks and says how many were dropped", () => {
    const blocks = capBlocks(Array.from({ length: 60 }, (_, i) => section(i)));
    expect(blocks).toHaveLength(50);
    expect(blocks[49]).toEqual({ type: "context", elements: [{ type: "mrkdwn", text: "… and 11 more" }] });
    expect(capBlocks([section(1)])).toHaveLength(1);
  });

  it("packs whole lines into sections under the limit and reports how many fit", () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i} ${"z".repeat(90)}`);
    const packed = packLines(lines, { maxSections: 3 });
    expect(packed.texts).toHaveLength(3);
    expect(packed.texts.every((t) => t.length <= 3000)).toBe(true);
    expect(packed.texts.join("\n").split("\n")).toEqual(lines.slice(0, packed.used));
    expect(packed.used).toBeLessThan(400);
  });
});

describe("formatting", () => {
  it("groups digits without depending on the locale", () => {
    expect(groupDigits(3420)).toBe("3,420");
    expect(groupDigits(1234567.5)).toBe("1,234,567.5");
    expect(groupDigits(999)).toBe("999");
  });

  it("shortens long ids and clips plain text", () => {
    expect(shortId("4f2a9c0e11223344556677889900aabb")).toBe("4f2a…");
    expect(shortId("abc")).toBe("abc");
    expect(clipPlain("x".repeat(80), 75)).toHaveLength(75);
    expect(clipPlain("x".repeat(80), 75).endsWith("…")).toBe(true);
  });
});
