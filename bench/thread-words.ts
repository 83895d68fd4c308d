// Words before recovery: every scenario's demo thread, counted as the on-call reads it — the replies
// (as Slack shows them, buttons included) up to the one that says commits resumed or were flowing,
// or the whole thread when none does. Fewer words before the answer is what the thread aims at.
// `npm run bench -- thread-words`, or `npx tsx bench/thread-words.ts` for the per-scenario list.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runDemo } from "../src/cli/demo.js";
import { listScenarios } from "../src/sim/scenarios.js";
import { messageText } from "../src/sim/slack/transcript.js";
import type { StoredMessage } from "../src/sim/slack/types.js";

const PARALLEL = 2;

/** What counts as the answer the on-call waits for. */
const RECOVERY = /Recovered:|Commits were flowing/;

/** The words of the replies before the recovery message (the root card is edited, not read twice). */
export function wordsBeforeRecovery(thread: readonly StoredMessage[]): number {
  let words = 0;
  for (const reply of thread.slice(1)) {
    const text = messageText(reply, { emoji: "codes" });
    if (RECOVERY.test(text)) break;
    words += text.split(/\s+/).filter((w) => /\w/.test(w)).length;
  }
  return words;
}

export async function wordsPerScenario(names: readonly string[] = listScenarios()) {
  const dir = mkdtempSync(join(tmpdir(), "thread-words-"));
  const counts = new Map<string, number>();
  const queue = [...names];
  try {
    const worker = async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        const scenario = name;
        const code = await runDemo({
          scenario,
          stdout: { write: () => true },
          env: { REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379", PATH: process.env.PATH ?? "" },
          followUpIntervalMs: 150,
          outDir: dir,
          onEnd: (end) => {
            counts.set(scenario, wordsBeforeRecovery(end.thread));
          },
        });
        if (code !== 0) throw new Error(`the demo of ${scenario} failed (exit ${code})`);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return counts;
}

/** min / median / max over the scenarios. */
export function summary(perScenario: ReadonlyMap<string, number>): Record<string, number> {
  const counts = [...perScenario.values()].sort((a, b) => a - b);
  const mid = Math.floor(counts.length / 2);
  const median =
    counts.length % 2 === 1 ? (counts[mid] ?? 0) : ((counts[mid - 1] ?? 0) + (counts[mid] ?? 0)) / 2;
  return {
    scenarios: counts.length,
    "words before recovery, min": counts[0] ?? 0,
    "words before recovery, median": median,
    "words before recovery, max": counts[counts.length - 1] ?? 0,
  };
}

export async function run(): Promise<Record<string, number>> {
  return summary(await wordsPerScenario());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const names = process.argv.slice(2);
  const counts = await wordsPerScenario(names.length > 0 ? names : undefined);
  for (const [name, n] of [...counts].sort((a, b) => a[0].localeCompare(b[0])))
    process.stdout.write(`${name.padEnd(48)} ${n}\n`);
  for (const [key, value] of Object.entries(summary(counts))) process.stdout.write(`${key}: ${value}\n`);
}
