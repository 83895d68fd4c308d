// `schemas [--write DIR | --check DIR]`: keeps docs/*.schema.json equal to the zod schemas.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseCall, usageError } from "../args.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { type CommandCall, writeLine } from "../io.js";
import { renderSchemaFiles, reportJsonSchemas } from "../schemas.js";

export const OPTIONS = {
  write: { type: "string" },
  check: { type: "string" },
} as const;

export async function runSchemasCommand(call: CommandCall): Promise<ExitCodeValue> {
  const { io } = call;
  const { values } = parseCall(call, OPTIONS);
  if (values.write !== undefined && values.check !== undefined) {
    throw usageError("schemas", "Use either --write or --check, not both.");
  }
  if (values.write !== undefined) {
    mkdirSync(values.write, { recursive: true });
    for (const { file, text } of renderSchemaFiles()) {
      const target = path.join(values.write, file);
      writeFileSync(target, text);
      writeLine(io.stdout, `wrote ${target}`);
    }
    return ExitCode.Ok;
  }
  if (values.check !== undefined) {
    const stale = staleSchemaFiles(values.check);
    for (const file of stale) writeLine(io.stderr, `out of date: ${path.join(values.check, file)}`);
    if (stale.length === 0) {
      writeLine(io.stdout, `JSON Schemas in ${values.check} match the code.`);
      return ExitCode.Ok;
    }
    writeLine(io.stderr, `Regenerate with: iceberg-bot schemas --write ${values.check}`);
    return ExitCode.NeedsAction;
  }
  io.stdout.write(`${JSON.stringify(reportJsonSchemas(), null, 2)}\n`);
  return ExitCode.Ok;
}

/** Files in `dir` that are missing or differ from what the code generates. */
function staleSchemaFiles(dir: string): string[] {
  return renderSchemaFiles()
    .filter(({ file, text }) => {
      try {
        return readFileSync(path.join(dir, file), "utf8") !== text;
      } catch {
        return true;
      }
    })
    .map(({ file }) => file);
}
