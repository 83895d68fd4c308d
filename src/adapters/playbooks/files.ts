// Reads the playbooks directory. Parsing and graph checks are pure (core/playbook/load.ts);
// this adapter only lists and reads the files, and adds the checks that span files.

import { existsSync, readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parsePlaybook } from "../../core/playbook/load.js";
import { propertyKeyWarnings } from "../../core/playbook/property-keys.js";
import type { PlaybookFile, PlaybookProblem, PlaybookSet } from "../../core/playbook/schema.js";
import { CodedError, ErrorCode } from "../../errors.js";

export interface LintResult {
  ok: boolean;
  problems: PlaybookProblem[];
}

/** Every problem in every playbook file of `dir`, with file and line (for `playbooks lint`). */
export async function lintPlaybooks(dir: string = defaultPlaybooksDir()): Promise<LintResult> {
  const { problems } = await readSet(dir);
  return { ok: problems.every((p) => p.severity === "warning"), problems };
}

/** The playbooks the bot runs with; throws PlaybookInvalid listing file:line problems. */
export async function loadPlaybooks(dir: string = defaultPlaybooksDir()): Promise<PlaybookSet> {
  const { set, problems: all } = await readSet(dir);
  const problems = all.filter((p) => p.severity !== "warning");
  if (problems.length > 0) {
    const lines = problems.map((p) => `${p.file}:${p.line}: ${p.message}`);
    throw new CodedError(
      ErrorCode.PlaybookInvalid,
      `Invalid playbooks in ${dir}:\n  - ${lines.join("\n  - ")}`,
      {
        hint: `Fix the lines above; \`iceberg-bot playbooks lint ${dir}\` checks them without starting the bot.`,
        details: { dir, problems },
      },
    );
  }
  return set;
}

/** playbooks/ at the package root, found from this module (works from src/ and dist/). */
export function defaultPlaybooksDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, "package.json")) && isOurPackage(join(dir, "package.json"))) {
      return join(dir, "playbooks");
    }
    dir = dirname(dir);
  }
  return join(process.cwd(), "playbooks");
}

function isOurPackage(file: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { name?: string }).name === "iceberg-bot";
  } catch {
    return false;
  }
}

async function readSet(dir: string): Promise<{ set: PlaybookSet; problems: PlaybookProblem[] }> {
  const set: PlaybookSet = { playbooks: [], auditFixes: {}, files: {} };
  const problems: PlaybookProblem[] = [];
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => /\.ya?ml$/i.test(n)).sort();
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return {
      set,
      problems: [{ file: dir, line: 0, message: `cannot read the playbooks directory (${reason})` }],
    };
  }
  if (names.length === 0) {
    problems.push({ file: dir, line: 0, message: "no playbook files (*.yaml) in this directory" });
  }
  const parsed: { file: string; playbook: PlaybookFile }[] = [];
  for (const name of names) {
    const file = join(dir, name);
    const text = await readFile(file, "utf8");
    const result = parsePlaybook(text, file);
    problems.push(...result.problems);
    if (result.playbook) {
      parsed.push({ file, playbook: result.playbook });
      problems.push(...propertyKeyWarnings(result.playbook, text, file));
    }
  }

  const ownerOfStep = new Map<string, string>();
  for (const { file, playbook } of parsed) {
    if (set.files[playbook.id]) {
      problems.push({
        file,
        line: 1,
        message: `playbook id ${playbook.id} is already used by ${set.files[playbook.id]}`,
      });
      continue;
    }
    set.files[playbook.id] = file;
    if (playbook.kind === "audit-fixes") {
      for (const [check, fix] of Object.entries(playbook.fixes)) {
        const key = check as keyof PlaybookSet["auditFixes"];
        if (set.auditFixes[key]) {
          problems.push({ file, line: 1, message: `audit check ${check} has a fix in another file too` });
        } else if (fix) {
          set.auditFixes[key] = fix;
        }
      }
      continue;
    }
    for (const step of playbook.steps) {
      const owner = ownerOfStep.get(step.id);
      if (owner) problems.push({ file, line: 1, message: `step ${step.id} is also defined in ${owner}` });
      ownerOfStep.set(step.id, file);
    }
    set.playbooks.push(playbook);
  }
  return { set, problems };
}
