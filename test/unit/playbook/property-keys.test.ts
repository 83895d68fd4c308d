// `playbooks lint` warns about table property keys Iceberg does not define; the list it checks
// against is the one in Iceberg's configuration documentation.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lintPlaybooks, loadPlaybooks } from "../../../src/adapters/playbooks/files.js";
import { runCli } from "../../../src/cli/run-cli.js";
import {
  ICEBERG_TABLE_PROPERTIES,
  isIcebergTableProperty,
} from "../../../src/core/iceberg-table-properties.js";
import { REAL_DIR, REPO_ROOT } from "../../support/openapi.js";

/** The first column of every table under "## Table properties" in Iceberg's configuration.md. */
function documentedKeys(): string[] {
  const doc = readFileSync(path.join(REAL_DIR, "iceberg/docs/configuration.md"), "utf8");
  const start = doc.indexOf("## Table properties");
  const end = doc.indexOf("\n## ", start + 5);
  return doc
    .slice(start, end)
    .split("\n")
    .filter((line) => line.startsWith("| ") && !/^\| (Property|-)/.test(line))
    .map((line) => (line.split("|")[1] ?? "").trim());
}

function playbookDir(setKey: string, statementKey: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "playbook-keys-"));
  const source = readFileSync(path.join(REPO_ROOT, "playbooks/commit-failures.yaml"), "utf8");
  writeFileSync(
    path.join(dir, "commit-failures.yaml"),
    source
      .replace("key: commit.retry.num-retries", `key: ${setKey}`)
      .replace("'write.metadata.previous-versions-max'", `'${statementKey}'`),
  );
  writeFileSync(
    path.join(dir, "audit-fixes.yaml"),
    readFileSync(path.join(REPO_ROOT, "playbooks/audit-fixes.yaml"), "utf8").replace(
      "'write.metadata.previous-versions-max'",
      `'${statementKey}'`,
    ),
  );
  return dir;
}

describe("Iceberg table property keys", () => {
  it("are exactly the ones Iceberg's configuration documentation lists", () => {
    expect([...ICEBERG_TABLE_PROPERTIES].sort()).toEqual(documentedKeys().sort());
    expect(ICEBERG_TABLE_PROPERTIES).toContain("commit.retry.num-retries");
  });

  it("accept per-column keys and refuse near misses", () => {
    expect(isIcebergTableProperty("write.metadata.metrics.column.event_id")).toBe(true);
    expect(isIcebergTableProperty("write.metadata.metrics.column.")).toBe(false);
    expect(isIcebergTableProperty("commit.retry.num-retry")).toBe(false);
  });

  it("the shipped playbooks use only defined keys", async () => {
    const result = await lintPlaybooks();
    expect(result.problems).toEqual([]);
  });

  it("lint warns with file, line and the nearest key, and still passes", async () => {
    const dir = playbookDir("commit.retry.num-retry", "write.metadata.previous-version-max");
    const result = await lintPlaybooks(dir);
    expect(result.ok).toBe(true);
    const messages = result.problems.map((p) => `${path.basename(p.file)}:${p.line}: ${p.message}`);
    expect(messages).toContainEqual(
      expect.stringMatching(
        /^commit-failures\.yaml:\d+: table property commit\.retry\.num-retry is not one Iceberg defines; did you mean commit\.retry\.num-retries\?$/,
      ),
    );
    expect(messages).toContainEqual(
      expect.stringMatching(/^audit-fixes\.yaml:\d+: table property write\.metadata\.previous-version-max/),
    );
    const line = result.problems.find((p) => p.message.includes("num-retry "))?.line ?? 0;
    const text = readFileSync(path.join(dir, "commit-failures.yaml"), "utf8").split("\n");
    expect(text[line - 1]).toContain("key: commit.retry.num-retry");
    // The bot starts with them: a warning is not an error.
    await expect(loadPlaybooks(dir)).resolves.toBeDefined();

    let stdout = "";
    const code = await runCli(["playbooks", "lint", dir], {
      env: {},
      stdout: { write: (c: string) => (stdout += c) },
      stderr: { write: () => true },
    });
    expect(code).toBe(0);
    expect(stdout).toMatch(/commit-failures\.yaml:\d+: warning: table property commit\.retry\.num-retry/);
    expect(stdout).toMatch(/are valid \(2 warnings\)\.\n$/);
  });
});
