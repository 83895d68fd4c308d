// The shipped step playbooks, parsed once: tests choose next steps exactly as the bot does.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parsePlaybook } from "../../src/core/remediation/load.js";
import type { Playbook } from "../../src/core/remediation/schema.js";

const file = join(import.meta.dirname, "../../playbooks/commit-failures.yaml");
const parsed = parsePlaybook(readFileSync(file, "utf8"), file);
if (parsed.playbook?.kind !== "steps") {
  throw new Error(`cannot parse ${file}: ${JSON.stringify(parsed.problems)}`);
}

export const PLAYBOOKS: readonly Playbook[] = [parsed.playbook];
