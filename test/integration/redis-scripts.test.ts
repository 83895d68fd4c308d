// The Lua scripts live as files in one folder, each listed once, and each compiles on the real
// Redis with its includes inlined once. Logic several scripts share is written once: the
// "first time seen" SET NX EX appears in its include and nowhere else.

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runScript, SCRIPT_NAMES, SCRIPTS_DIR, scriptSource } from "../../src/adapters/redis/scripts.js";
import { filesUnder } from "../support/files.js";
import { REPO_ROOT } from "../support/openapi.js";
import { type TestRedisScope, testRedisScope } from "../support/redis.js";

let scope: TestRedisScope | undefined;
afterEach(async () => {
  await scope?.cleanup();
  scope = undefined;
});

const luaFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".lua"))
    .map((f) => f.replace(/\.lua$/, ""))
    .sort();

describe("redis scripts", () => {
  it("lists every script file once, and every include is used", () => {
    expect([...SCRIPT_NAMES].sort()).toEqual(luaFiles(SCRIPTS_DIR));
    const sources = SCRIPT_NAMES.map((name) => readFileSync(`${SCRIPTS_DIR}${name}.lua`, "utf8")).join("\n");
    for (const include of luaFiles(`${SCRIPTS_DIR}includes`))
      expect(sources, include).toContain(`--- @include "${include}"`);
  });

  it("is copied beside the compiled loader by the build", () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      scripts: { build: string };
      files: string[];
    };
    const folder = path.relative(path.join(REPO_ROOT, "src"), SCRIPTS_DIR);
    expect(pkg.scripts.build).toContain(`fs.cpSync('src/${folder}', 'dist/${folder}', { recursive: true })`);
    expect(pkg.files).toContain("dist");
  });

  it("inlines each include once, however many times it is named", () => {
    const intake = scriptSource("incident-intake");
    expect(intake.match(/local function firstTime\(/g)).toHaveLength(1);
    expect(intake.match(/local function openIncident\(/g)).toHaveLength(1);
    expect(intake).not.toContain("@include");
  });

  it("keeps no script in TypeScript, and SET NX EX only in the first-time include", () => {
    // Lua quotes with ' and the formatter keeps TypeScript's strings in ", so redis.call(' is Lua.
    const inline = filesUnder(path.join(REPO_ROOT, "src"))
      .filter((f) => f.endsWith(".ts") && /redis\.call\('/.test(readFileSync(f, "utf8")))
      .map((f) => path.relative(REPO_ROOT, f));
    expect(inline).toEqual([]);
    const setNx = filesUnder(SCRIPTS_DIR).filter((f) => /'SET', [^\n]*'NX'/.test(readFileSync(f, "utf8")));
    expect(setNx.map((f) => path.relative(SCRIPTS_DIR, f))).toEqual(["includes/first-time.lua"]);
  });

  it("compiles every script on Redis, and runs one by SHA after its first run", async () => {
    scope = testRedisScope("scripts");
    for (const name of SCRIPT_NAMES) {
      const sha = (await scope.redis.script("LOAD", scriptSource(name))) as string;
      expect(sha, name).toMatch(/^[0-9a-f]{40}$/);
    }
    const key = `{${scope.namespace}}:seen:x`;
    expect(await runScript(scope.redis, "first-time-each", [key, key], [60, 60])).toEqual([1, 0]);
    expect(await scope.redis.ttl(key)).toBeGreaterThan(0);
  });
});
