// The build's snapshot of the shipped playbooks stands in for parsing them: what a command gets
// from it must be exactly what parsing the YAML gives, and any change to the files must send the
// command back to the YAML.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadPlaybooks, writePlaybookSnapshot } from "../../../src/adapters/playbooks/files.js";

let scratch: string;
let dir: string;
let snapshot: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), "playbook-snapshot-"));
  dir = join(scratch, "playbooks");
  cpSync(resolve("playbooks"), dir, { recursive: true });
  snapshot = join(scratch, "playbook-set.json");
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

describe("the playbook snapshot", () => {
  it("gives the very set that parsing the YAML gives", async () => {
    await writePlaybookSnapshot(dir, snapshot);
    const parsed = await loadPlaybooks(dir, "");
    const fromSnapshot = await loadPlaybooks(dir, snapshot);
    expect(fromSnapshot).toStrictEqual(parsed);
    // Nothing the parse makes is lost in JSON (no undefined members, dates or class instances).
    expect(JSON.parse(JSON.stringify(parsed))).toStrictEqual(parsed);
  });

  it("is passed over once a file's text differs from the one it was made from", async () => {
    await writePlaybookSnapshot(dir, snapshot);
    const file = join(dir, "commit-failures.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace(/^id: .*$/m, "id: edited-after-build"));
    const set = await loadPlaybooks(dir, snapshot);
    expect(set.playbooks.map((p) => p.id)).toContain("edited-after-build");
    expect(set).toStrictEqual(await loadPlaybooks(dir, ""));
  });

  it("is passed over when a playbook file is added", async () => {
    await writePlaybookSnapshot(dir, snapshot);
    writeFileSync(join(dir, "zz-broken.yaml"), "id: [unclosed\n");
    await expect(loadPlaybooks(dir, snapshot)).rejects.toThrow(/zz-broken\.yaml/);
  });
});
