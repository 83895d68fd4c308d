// Reads the playbooks directory. Parsing and graph checks are pure (core/remediation/load.ts);
// this adapter only lists and reads the files, and adds the checks that span files.

import { existsSync, readFileSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PlaybookFile, PlaybookProblem, PlaybookSet } from "../../core/remediation/schema.js";
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

/**
 * The bundled playbooks as the build parsed them, with the texts they were parsed from: a command
 * whose playbook files still hold exactly those texts takes the set from here and loads neither
 * the YAML parser nor the playbook schema.
 */
const SNAPSHOT = new URL("playbook-set.json", import.meta.url);

interface Snapshot {
  /** Each file's name and text, in reading order. */
  texts: Record<string, string>;
  /** The set, each entry of `files` a file name in the directory rather than its path. */
  set: PlaybookSet;
}

/** The playbooks the bot runs with; throws PlaybookInvalid listing file:line problems. */
export async function loadPlaybooks(
  dir: string = defaultPlaybooksDir(),
  snapshot: URL | string = SNAPSHOT,
): Promise<PlaybookSet> {
  const ready = await fromSnapshot(dir, snapshot);
  if (ready) return ready;
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

/** Writes the snapshot of `dir`'s playbooks (at build time); throws when they do not load. */
export async function writePlaybookSnapshot(
  dir: string = defaultPlaybooksDir(),
  snapshot: URL | string = SNAPSHOT,
): Promise<void> {
  const set = await loadPlaybooks(dir, "");
  const texts: Record<string, string> = {};
  for (const name of await playbookFileNames(dir)) texts[name] = await readFile(join(dir, name), "utf8");
  const files = Object.fromEntries(Object.entries(set.files).map(([id, file]) => [id, basename(file)]));
  const content: Snapshot = { texts, set: { ...set, files } };
  await writeFile(snapshot, `${JSON.stringify(content)}\n`);
}

/** The snapshot's set when `dir` holds exactly the files and texts it was made from. */
async function fromSnapshot(dir: string, snapshot: URL | string): Promise<PlaybookSet | undefined> {
  if (snapshot === "") return undefined;
  let stored: Snapshot;
  let names: string[];
  try {
    stored = JSON.parse(await readFile(snapshot, "utf8")) as Snapshot;
    names = await playbookFileNames(dir);
  } catch {
    return undefined;
  }
  if (names.join("\n") !== Object.keys(stored.texts).join("\n")) return undefined;
  const texts = await Promise.all(names.map((name) => readFile(join(dir, name), "utf8")));
  if (texts.some((text, i) => text !== stored.texts[names[i] as string])) return undefined;
  const files = Object.fromEntries(
    Object.entries(stored.set.files).map(([id, name]) => [id, join(dir, name)]),
  );
  return { ...stored.set, files };
}

async function playbookFileNames(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => /\.ya?ml$/i.test(n)).sort();
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
    names = await playbookFileNames(dir);
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
  const [{ parsePlaybook }, { propertyKeyWarnings }] = await Promise.all([
    import("../../core/remediation/load.js"),
    import("../../core/remediation/property-keys.js"),
  ]);
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
