// Outside text that tries to change formatting: markup, control characters, bidi overrides and
// hidden characters, through the renderers people see. The bot's own mentions still render.

import { describe, expect, it } from "vitest";
import type { KnownBlock } from "../../../src/adapters/slack/render/block-kit.js";
import { renderDiagnosis, renderEvidenceModal } from "../../../src/adapters/slack/render/diagnosis.js";
import { escapeCode, escapeMrkdwn } from "../../../src/adapters/slack/render/limits.js";
import { neutralizeMrkdwn, stripInvisible } from "../../../src/adapters/slack/render/neutralize.js";
import { renderProposal } from "../../../src/adapters/slack/render/proposal.js";
import { renderStatusCard } from "../../../src/adapters/slack/render/status-card.js";
import type { Report } from "../../../src/core/report/schema.js";
import type { ProposalView } from "../../../src/services/view-models.js";
import { conflictReport, storySample } from "./samples.js";

const RLO = "\u202e";
const HOSTILE_JOB = `*URGENT* _ignore_ ~this~ \`rm -rf\` <!channel> <https://evil.example|login> ${RLO}txt.exe`;
const HOSTILE_EXCEPTION = `CommitFailedException: boom\n> quoted by upstream\n\u001b[31mred\u0007 <@U0CEO> \u2066hidden\u2069 ad\u200bmin`;

// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
const BIDI_OR_ESCAPE = /[\u202a-\u202e\u2066-\u2069\u0000-\u0008\u001b]/;

/** Every character that could still start or end mrkdwn formatting, a link or a mention. */
function formattingHazards(text: string): string[] {
  const hazards: string[] = [];
  if (CONTROL.test(text)) hazards.push("control");
  if (/[\u202a-\u202e\u2066-\u2069]/.test(text)) hazards.push("bidi");
  if (/\u200b(?!``)/.test(text)) hazards.push("zero-width space");
  if (/<!channel>|<@U0CEO>|<https:/.test(text)) hazards.push("link or mention");
  if (/(^|[^\p{L}\p{N}])[*_~][^\s]/mu.test(text.replace(/<[^>]*>/g, ""))) hazards.push("opening marker");
  if (/^(&gt;|>)/m.test(text)) hazards.push("quote");
  return hazards;
}

function allText(message: { text: string; blocks: KnownBlock[] }): string {
  return `${message.text}\n${JSON.stringify(message.blocks)}`;
}

function mrkdwnTexts(blocks: KnownBlock[]): string[] {
  const out: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === "object") {
      const object = value as Record<string, unknown>;
      if (object.type === "mrkdwn" && typeof object.text === "string") out.push(object.text);
      Object.values(object).forEach(visit);
    }
  };
  visit(blocks);
  return out;
}

/** Our own markup is fine; only what came from outside is judged, so strip the known parts. */
function outsideParts(text: string): string {
  return text
    .replace(/```[\s\S]*?```/g, "")
    .replace(/`[^`]*`/g, "")
    .replace(/^(:\w+: )?\*[^*\n]*\*/gm, "")
    .replace(/^_[^_\n]*_/gm, "")
    .replace(/_\([^)]*\)_/g, "")
    .replace(/<@U0LEAD>|<!subteam\^S0ONCALL>/g, "");
}

describe("outside text cannot change formatting", () => {
  it("neutralises markup, controls, bidi and hidden characters, keeping names inside words exact", () => {
    const out = neutralizeMrkdwn(HOSTILE_JOB);
    expect(out).toContain("\u2217URGENT\u2217");
    expect(out).toContain("\u02cdignore\u02cd");
    expect(out).toContain("\u223cthis\u223c");
    expect(out).toContain("\u02cbrm -rf\u02cb");
    expect(out).toContain("&lt;!channel&gt;");
    expect(out).not.toContain(RLO);
    expect(formattingHazards(out)).toEqual([]);
    // Underscores and stars inside a word cannot format and stay as typed (names remain exact).
    expect(neutralizeMrkdwn("db.page_views 2*3 application_17_04")).toBe(
      "db.page_views 2*3 application_17_04",
    );
    expect(neutralizeMrkdwn("> quote\nnext\n> again")).toBe("\u00ad&gt; quote\nnext\n\u00ad&gt; again");
    expect(stripInvisible("a\u200db 👨\u200d👩\u200d👧 x\u0000y\r\nz")).toBe("ab 👨\u200d👩\u200d👧 xy\nz");
    expect(escapeCode("a`b\u202ec<d>")).toBe("a'bc&lt;d&gt;");
  });

  it("keeps hostile job names and exception text inert in the diagnosis", () => {
    const report: Report = {
      ...conflictReport,
      findings: [
        {
          ...conflictReport.findings[0]!,
          summary: `job ${HOSTILE_JOB} failed`,
          evidence: [{ source: "flink", detail: HOSTILE_EXCEPTION, data: {} }],
        },
      ],
      sources: {
        ...conflictReport.sources,
        connect: { status: "unavailable", error: `connector *${HOSTILE_JOB}* unreachable` },
      },
    };
    const message = renderDiagnosis(report);
    for (const text of [message.text, ...mrkdwnTexts(message.blocks)]) {
      expect(formattingHazards(outsideParts(text)), text).toEqual([]);
    }
    expect(allText(message)).not.toMatch(BIDI_OR_ESCAPE);
    // The multi-line exception is shown as a code block behind "Show all evidence", as typed but
    // without what hides text; the message itself keeps code out.
    const modal = { blocks: renderEvidenceModal(report).blocks as KnownBlock[] };
    for (const text of mrkdwnTexts(modal.blocks))
      expect(formattingHazards(outsideParts(text)), text).toEqual([]);
    expect(mrkdwnTexts(message.blocks).join("\n")).not.toContain("```");
    expect(mrkdwnTexts(modal.blocks).join("\n")).toContain(
      "```CommitFailedException: boom\n&gt; quoted by upstream\n[31mred &lt;@U0CEO&gt; hidden admin```",
    );
  });

  it("keeps hostile labels and names inert on the proposal and the card; the bot's mentions render", () => {
    const proposal: ProposalView = {
      incidentId: "inc-1",
      proposalId: "p-1",
      table: "db.events",
      step: {
        id: "restart-connect-coordinator",
        playbook: "connect",
        summary: `restart ${HOSTILE_JOB}`,
        change: { kind: "connector-restart", connector: HOSTILE_JOB, includeTasks: true, onlyFailed: true },
        automatic: true,
      },
      why: HOSTILE_EXCEPTION,
      risk: { level: "low", detail: "_just_ a restart" },
      verification: { checks: 3, intervalSeconds: 60 },
      approvers: ["S0ONCALL", "U0LEAD"],
    };
    const message = renderProposal(proposal);
    for (const text of mrkdwnTexts(message.blocks)) {
      expect(formattingHazards(outsideParts(text)), text).toEqual([]);
    }
    const everything = allText(message);
    expect(everything).toContain("<!subteam^S0ONCALL>");
    expect(everything).toContain("<@U0LEAD>");
    expect(everything).not.toContain(RLO);

    const card = renderStatusCard(
      storySample({
        verdict: { id: "commit-conflict", summary: HOSTILE_JOB },
        cause: { id: "rewrite-in-window", summary: HOSTILE_EXCEPTION },
      }),
      60_000,
    );
    for (const text of [card.text, ...mrkdwnTexts(card.blocks)]) {
      expect(formattingHazards(outsideParts(text)), text).toEqual([]);
    }
    expect(JSON.stringify(card.blocks)).not.toMatch(BIDI_OR_ESCAPE);
    expect(escapeMrkdwn("plain words stay plain")).toBe("plain words stay plain");
  });
});
