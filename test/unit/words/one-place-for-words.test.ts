// The words for ids, the duration and the clock live in src/core/words and nowhere else: a
// renderer that carries its own label table or its own formatter drifts ("Flink REST" here,
// "Flink REST API" there; "4 min" in the thread, "5 min" in the postmortem). This reads src/.

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FINDING_IDS, SOURCE_NAMES, STEP_IDS, WRITER_KINDS } from "../../../src/core/ids.js";
import { filesUnder } from "../../support/files.js";
import { REPO_ROOT } from "../../support/openapi.js";

const WORDS_DIR = path.join("src", "core", "words");
/** Browser code served as a string: it cannot import a module, and shows the simulated clock. */
const BROWSER_SCRIPTS = new Set([path.join("src", "cli", "dev-page.ts")]);

interface Source {
  file: string;
  lines: string[];
}

function sources(): Source[] {
  return filesUnder(path.join(REPO_ROOT, "src"))
    .filter((f) => f.endsWith(".ts"))
    .map((f) => path.relative(REPO_ROOT, f))
    .filter((f) => !f.startsWith(WORDS_DIR) && !BROWSER_SCRIPTS.has(f))
    .map((file) => ({ file, lines: readFileSync(path.join(REPO_ROOT, file), "utf8").split("\n") }));
}

const code = (line: string) => !/^\s*(\/\/|\/?\*)/.test(line);
const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");

/** `"raise-commit-retries": "raise commit retries"` or `flink: "Flink REST"`: an id given words. */
function keyedWords(ids: readonly string[]): RegExp {
  return new RegExp(`^\\s*["']?(${ids.map(quote).join("|")})["']?\\s*:\\s*["'\`][^"'\`]*\\s[^"'\`]*["'\`]`);
}

const TABLES = [
  { what: "finding ids", pattern: keyedWords(FINDING_IDS.filter((id) => id.includes("-"))) },
  { what: "step ids", pattern: keyedWords(STEP_IDS) },
  { what: "source or writer kinds", pattern: keyedWords([...new Set([...SOURCE_NAMES, ...WRITER_KINDS])]) },
];

/** Files with two or more lines that give an id of one family its words: a label table. */
function labelTables(files: Source[]): string[] {
  return files.flatMap(({ file, lines }) =>
    TABLES.flatMap(({ what, pattern }) => {
      const hits = lines.filter((l) => code(l) && pattern.test(l));
      return hits.length >= 2 ? [`${file}: words for ${what}: ${hits[0]!.trim()}`] : [];
    }),
  );
}

const WORD_RECORD = /Record<\s*(FindingId|TriageId|StepId|SourceName|WriterKind)\s*,\s*string\s*>/;
/** An id turned into words on the spot ("raise-commit-retries" → "raise commit retries"). */
const ID_AS_WORDS = /[iI]d\)?\.replace(All)?\(\s*(["'`]-["'`]|\/-\/g)\s*,\s*["'`] ["'`]/;
/** A duration written out ("${n} min", "${h} h", "${d} d"), or a formatter of its own. */
const DURATION = /\$\{[^}]+\} ?(min|h|d)\b|function\s+formatDuration\b/;
/** A clock written out: the time of day cut from an ISO stamp. */
const CLOCK = /\.slice\(\s*11\s*,\s*16\s*\)/;

function formatters(files: Source[]): string[] {
  return files.flatMap(({ file, lines }) =>
    lines.flatMap((line, i) => {
      if (!code(line)) return [];
      const at = `${file}:${i + 1}: ${line.trim()}`;
      if (WORD_RECORD.test(line)) return [`${at} (a label table: use src/core/words/labels.ts)`];
      if (ID_AS_WORDS.test(line)) return [`${at} (an id made into words: use src/core/words/labels.ts)`];
      if (DURATION.test(line)) return [`${at} (a duration: use formatDuration from src/core/words)`];
      if (CLOCK.test(line)) return [`${at} (a clock: use src/core/words/clock.ts)`];
      return [];
    }),
  );
}

describe("one place for words", () => {
  const files = sources();

  it("finds no label table keyed by ids outside src/core/words", () => {
    expect(labelTables(files)).toEqual([]);
  });

  it("finds no other duration or clock formatter, and no id made into words on the spot", () => {
    expect(formatters(files)).toEqual([]);
  });

  it("would catch a renderer's own table, duration and clock", () => {
    const renderer: Source = {
      file: "src/adapters/x.ts",
      lines: [
        "const TITLES: Record<StepId, string> = {",
        '  "raise-commit-retries": "raise the retry budget",',
        '  "commit-less-often": "commit less often",',
        "};",
        "const SOURCES = {",
        '  catalog: "Iceberg catalog",',
        '  flink: "Flink REST",',
        "};",
        `const took = \`\${Math.floor(ms / 60_000)} min\`;`,
        `const at = \`\${new Date(ms).toISOString().slice(11, 16)} UTC\`;`,
        'const label = step.stepId.replaceAll("-", " ");',
      ],
    };
    expect(labelTables([renderer])).toHaveLength(2);
    expect(formatters([renderer])).toHaveLength(4);
    // A table of states or a single id in a condition is not a label table.
    const other: Source = {
      file: "src/adapters/y.ts",
      lines: ['  catalog: "ok",', '  flink: "unavailable",', '  healthy: "all is well",'],
    };
    expect(labelTables([other])).toEqual([]);
  });
});
