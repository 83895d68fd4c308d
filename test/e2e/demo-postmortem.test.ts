// The postmortem of the default demo: the canvas the bot made holds every timeline entry in
// order, its times agree with the thread, both commit timelines are embedded (the files shared
// in the thread), and the markdown parses in a Markdown renderer with no raw control characters.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { type DemoEnd, runDemo } from "../../src/cli/demo.js";
import { runCli } from "../../src/cli/run-cli.js";
import { utcDateTime } from "../../src/core/words/clock.js";
import { decodePng } from "../support/png.js";
import { REDIS_URL } from "../support/redis.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u0080-\u009f]/;
const TOKEN = /<!date\^(\d+)\^[^|>]*\|[^>]*>/g;

describe("the demo's postmortem", () => {
  it("has every timeline entry in order, times as in the thread, both pictures, and parses as Markdown", async () => {
    let out = "";
    let end: DemoEnd | undefined;
    let cli: number | undefined;
    let cliOut = "";
    const outDir = mkdtempSync(join(tmpdir(), "demo-postmortem-"));
    try {
      const code = await runDemo({
        stdout: { write: (chunk: string) => (out += chunk) },
        env: { REDIS_URL },
        outDir,
        onEnd: async (e) => {
          end = e;
          // `iceberg-bot postmortem` writes the same draft and both pictures, read from the bot's Redis.
          cli = await runCli(
            ["postmortem", "inc-1", "--out", join(outDir, "cli"), "--redis-namespace", e.namespace],
            {
              stdout: { write: (chunk: string) => (cliOut += chunk) },
              stderr: { write: (chunk: string) => (cliOut += chunk) },
              env: { REDIS_URL: e.redisUrl },
              now: e.now,
            },
          );
        },
      });
      expect(code, out).toBe(0);
      expect(end!.canvases).toHaveLength(1);
      const markdown = end!.canvases[0]!.markdown;
      // The demo writes the same canvas to disk and says where.
      const path = join(outDir, "db.events-postmortem.md");
      expect(out).toContain(path);
      expect(readFileSync(path, "utf8")).toBe(markdown);

      // Parses, and nothing in it is a raw control character (tabs and newlines aside).
      expect(markdown).not.toMatch(CONTROL);
      const md = new MarkdownIt();
      const tokens = md.parse(markdown, {});
      const html = md.render(markdown);
      expect(html).not.toMatch(CONTROL);
      const headings = tokens
        .filter((t, i) => t.type === "inline" && tokens[i - 1]?.type === "heading_open")
        .map((t) => t.content);
      expect(headings).toEqual([
        "Postmortem: db.events (inc-1)",
        "Summary",
        "Impact",
        "Timeline",
        "Durations",
        "Cause",
        "Fix",
        "What remains open",
        "Pictures",
      ]);
      expect(tokens.some((t) => t.type === "table_open")).toBe(true);

      // Every timeline entry, in order, at times that never go back.
      const rows = [...markdown.matchAll(/^\| (\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC) \| (.+) \|$/gm)].map(
        (m) => ({
          at: m[1]!,
          what: m[2]!,
        }),
      );
      expect(rows.map((r) => r.what.split(/[:;]/)[0])).toEqual([
        "Last good commit of Flink job events-ingest",
        "First failure of Flink job events-ingest seen",
        "Alert fired",
        "First diagnosis",
        "Proposed",
        "Approved by U0DEMOONCALL",
        "Change applied by the bot",
        "Recovered",
      ]);
      expect([...rows.map((r) => r.at)].sort()).toEqual(rows.map((r) => r.at));

      // The thread's postmortem note says the same times as date tokens, in the same order.
      const thread = end!.thread;
      const note = thread.find((m) => /Postmortem draft/.test(m.text));
      expect(note).toBeDefined();
      const noteText = JSON.stringify(note!.blocks);
      const noteTimes = [...noteText.matchAll(TOKEN)].map((m) => utcDateTime(Number(m[1]) * 1000));
      expect(noteTimes).toEqual(rows.map((r) => r.at));
      // And as the rest of the thread: the approval on the proposal, the recovery's first commit.
      const everything = thread.map((m) => JSON.stringify(m.blocks)).join("\n");
      const applied = /Applied by <@U0DEMOONCALL> at <!date\^(\d+)\^/.exec(everything);
      expect(applied).not.toBeNull();
      const approvedRow = rows.find((r) => r.what.startsWith("Approved by"));
      expect(approvedRow!.at).toBe(utcDateTime(Number(applied![1]) * 1000));
      const recovered = /First new snapshot[^"]*? at <!date\^(\d+)\^/.exec(everything);
      expect(recovered).not.toBeNull();
      expect(rows.at(-1)!.at).toBe(utcDateTime(Number(recovered![1]) * 1000));
      // Recovery counts from the writer's last good commit, the first row, not from the alert.
      const minutes =
        (Date.parse(rows.at(-1)!.at.replace(" UTC", "Z").replace(" ", "T")) -
          Date.parse(rows[0]!.at.replace(" UTC", "Z").replace(" ", "T"))) /
        60_000;
      expect(minutes).toBeGreaterThan(30);
      const recover =
        /Time to recover \(the writer's last good commit to its first commit again\): (?:(\d+) h)? ?(?:(\d+) min)?\n/.exec(
          markdown,
        );
      expect(recover?.[1] ?? recover?.[2]).toBeDefined();
      expect(
        Math.abs(Number(recover![1] ?? 0) * 60 + Number(recover![2] ?? 0) - minutes),
      ).toBeLessThanOrEqual(1);
      // A document read later: absolute UTC times only.
      expect(markdown).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
      expect(markdown).not.toMatch(/\bago\b/);

      // Both pictures, embedded by the permalinks of the files shared in the thread.
      const shared = thread.flatMap((m) => m.files ?? []);
      expect(shared.map((f) => f.name)).toEqual([
        "db.events-commits-1.png",
        "db.events-commits-after-change.png",
      ]);
      const images = tokens
        .flatMap((t) => t.children ?? [])
        .filter((t) => t.type === "image")
        .map((t) => t.attrGet("src") ?? "");
      expect(images).toHaveLength(2);
      for (const [i, file] of shared.entries())
        expect(images[i]).toMatch(new RegExp(`/files/${file.id}/${file.name}$`));

      expect(cli, cliOut).toBe(0);
      const written = cliOut.trim().split("\n");
      expect(written.map((p) => p.slice(p.lastIndexOf("/") + 1))).toEqual([
        "db.events-postmortem-inc-1.md",
        "db.events-commits-1.png",
        "db.events-commits-after-change.png",
      ]);
      const onDisk = readFileSync(written[0]!, "utf8");
      // The same text, the pictures beside it instead of in Slack.
      expect(onDisk).toBe(markdown.replace(/\]\(http:\/\/[^)]*\/files\/F\d+\/([^)]+)\)/g, "]($1)"));
      for (const png of written.slice(1)) expect(decodePng(readFileSync(png)).width).toBeGreaterThan(800);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  });
});
