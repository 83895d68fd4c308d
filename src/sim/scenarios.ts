// Finds and parses scenario files. Built-in scenarios live in src/sim/scenarios/*.yaml; the
// directory is found by walking up to the package root so the same code works from src/ (tsx,
// vitest) and from dist/ (tsc does not copy YAML files).

import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { CodedError, ErrorCode } from "../errors.js";
import { type Scenario, ScenarioSchema } from "./scenario/schema.js";

const PACKAGE_NAME = "iceberg-bot";

function findPackageRoot(start: string): string {
  let dir = start;
  for (;;) {
    const pkg = path.join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        const parsed = JSON.parse(readFileSync(pkg, "utf8")) as { name?: string };
        if (parsed.name === PACKAGE_NAME) return dir;
      } catch {
        // an unreadable package.json further down is not ours; keep walking up
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new CodedError(
        ErrorCode.Internal,
        `cannot find the ${PACKAGE_NAME} package root above ${start}`,
        {
          hint: "run the simulator from an installed or checked-out copy of the package",
        },
      );
    }
    dir = parent;
  }
}

/** Absolute path of the built-in scenario directory. */
function scenariosDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.join(findPackageRoot(here), "src", "sim", "scenarios");
}

export function listScenarios(): string[] {
  const dir = scenariosDir();
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => f.slice(0, -".yaml".length))
    .sort();
}

function resolveScenarioFile(nameOrPath: string): string {
  const looksLikePath = nameOrPath.includes("/") || nameOrPath.includes("\\") || /\.ya?ml$/.test(nameOrPath);
  const file = looksLikePath ? path.resolve(nameOrPath) : path.join(scenariosDir(), `${nameOrPath}.yaml`);
  if (!existsSync(file)) {
    const known = listScenarios().join(", ");
    throw new CodedError(ErrorCode.UsageInvalid, `scenario "${nameOrPath}" not found (looked at ${file})`, {
      hint: `use a built-in scenario name (${known}) or a path to a .yaml file`,
    });
  }
  return file;
}

/** Parses and validates scenario text; `source` names the file in errors. */
export function parseScenarioText(text: string, source: string): Scenario {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    throw new CodedError(ErrorCode.ConfigInvalid, `${source}: not valid YAML: ${(err as Error).message}`, {
      hint: "fix the YAML syntax at the line shown",
      cause: err,
    });
  }
  const result = ScenarioSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map(
      (i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`,
    );
    throw new CodedError(ErrorCode.ConfigInvalid, `${source}: invalid scenario: ${problems.join("; ")}`, {
      hint: "compare the named fields with src/sim/scenario/schema.ts",
      details: { file: source, fields: result.error.issues.map((i) => i.path.join(".")) },
    });
  }
  return result.data;
}

export function loadScenario(nameOrPath: string): Scenario {
  const file = resolveScenarioFile(nameOrPath);
  return parseScenarioText(readFileSync(file, "utf8"), file);
}
