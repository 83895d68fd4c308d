// The diagnosis and audit core takes `now` as a parameter: no clock, no randomness, no I/O.

import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { filesUnder } from "../../support/files.js";

const core = join(dirname(fileURLToPath(import.meta.url)), "../../../src/core");

const files = [
  ...filesUnder(join(core, "diagnosis")).filter((f) => f.endsWith(".ts")),
  ...filesUnder(join(core, "audit")).filter((f) => f.endsWith(".ts")),
  join(core, "statements.ts"),
  join(core, "table-name.ts"),
  join(core, "properties.ts"),
];

describe("core purity", () => {
  it.each(files.map((f) => [relative(core, f), f]))("%s reads no clock, randomness or I/O", (_name, file) => {
    const text = readFileSync(file, "utf8");
    expect(text).not.toMatch(/Date\.now\(|new Date\(\)|performance\.now|Math\.random|process\.env/);
    expect(text).not.toMatch(/from "node:|from "undici"|from "ioredis"|from "bullmq"|from "@slack/);
  });
});
