// `playbooks lint [dir]`: every problem as file:line: reason, exit 1 when there is any.

import { existsSync, statSync } from "node:fs";
import { cleanText } from "../../adapters/render/text-safety.js";
import { CodedError, ErrorCode } from "../../errors.js";
import { parseCall, usageError } from "../args.js";
import { ExitCode, type ExitCodeValue } from "../exit-codes.js";
import { type CommandCall, writeLine } from "../io.js";

export const OPTIONS = {} as const;

export async function runPlaybooksCommand(call: CommandCall): Promise<ExitCodeValue> {
  const { io } = call;
  const [action, dirArg] = parseCall(call, OPTIONS, ["action", "dir"], 1).positionals;
  if (action !== "lint")
    throw usageError(
      "playbooks",
      `Unknown playbooks action "${String(action).slice(0, 40)}"; the only one is lint.`,
    );
  const { defaultPlaybooksDir, lintPlaybooks } = await import("../../adapters/playbooks/files.js");
  const dir = dirArg ?? defaultPlaybooksDir();
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new CodedError(ErrorCode.UsageInvalid, `Playbook directory ${dir} does not exist.`, {
      hint: "Pass the directory that holds the playbook .yaml files, e.g. `iceberg-bot playbooks lint ./playbooks`.",
    });
  }
  const result = await lintPlaybooks(dir);
  for (const problem of result.problems) {
    const label = problem.severity === "warning" ? "warning: " : "";
    writeLine(
      io.stdout,
      `${problem.file}:${problem.line}: ${label}${cleanText(problem.message).replace(/\n/g, " ")}`,
    );
  }
  const warnings = result.problems.filter((p) => p.severity === "warning").length;
  if (result.ok) {
    const note = warnings === 0 ? "" : ` (${warnings} warning${warnings === 1 ? "" : "s"})`;
    writeLine(io.stdout, `Playbooks in ${dir} are valid${note}.`);
    return ExitCode.Ok;
  }
  const errors = result.problems.filter((p) => p.severity !== "warning");
  const files = new Set(errors.map((p) => p.file)).size;
  const count = errors.length;
  writeLine(
    io.stderr,
    `${count} problem${count === 1 ? "" : "s"} in ${files} file${files === 1 ? "" : "s"}.`,
  );
  return ExitCode.NeedsAction;
}
