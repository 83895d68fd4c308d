import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runDemo } from "../../src/cli/demo.js";
import { decodePng } from "../support/png.js";
import { REDIS_URL } from "../support/redis.js";

describe("iceberg-bot demo", () => {
  it("runs an incident from alert to diagnosis and prints the thread", async () => {
    let out = "";
    const outDir = mkdtempSync(join(tmpdir(), "demo-test-"));
    const code = await runDemo({
      stdout: { write: (chunk: string) => (out += chunk) },
      env: { REDIS_URL },
      outDir,
    });
    expect(code, out).toBe(0);
    // The follow-up interval the demo really uses is stated, the thread says the same, and the
    // thread's pictures are written: the diagnosis timeline and the one after recovery, each named
    // where it appears in the thread.
    expect(out).toMatch(/follow-up checks every 0\.5 s here/);
    expect(out).toMatch(/up to 6 checks over 3 s\./);
    const pictures = [...out.matchAll(/\[image: ([^\]]+) → ([^\]]+\.png)\]/g)];
    expect(pictures.map((m) => m[1])).toEqual([
      "Commits to db.events",
      "Commits to db.events after the change",
    ]);
    for (const [, , path] of pictures) {
      expect(path!.startsWith(outDir)).toBe(true);
      expect(out).toContain(`  ${path}\n`);
      expect(decodePng(readFileSync(path!)).width).toBeGreaterThan(800);
    }
    rmSync(outDir, { recursive: true, force: true });
    expect(out).toMatch(/\[\d+\] print the thread/);
    // Root status card, then the diagnosis indented under it.
    // The whole walk runs: the status card ends resolved.
    expect(out).toMatch(/db\.events — commits resumed/);
    expect(out).toMatch(/\n {4}.*db\.events: commit conflict/);
    expect(out).toContain("commit.retry.num-retries");
  });

  it("says how to get Redis when none answers and redis-server is not on PATH", async () => {
    let out = "";
    const code = await runDemo({
      stdout: { write: (chunk: string) => (out += chunk) },
      env: { REDIS_URL: "redis://127.0.0.1:1", PATH: "/nonexistent" },
    });
    expect(code).toBe(2);
    expect(out).toContain("docker compose up -d redis");
  });

  it("starts a private redis-server when REDIS_URL does not answer", async () => {
    let out = "";
    const code = await runDemo({
      stdout: { write: (chunk: string) => (out += chunk) },
      env: { REDIS_URL: "redis://127.0.0.1:1", PATH: process.env.PATH ?? "" },
    });
    expect(code, out).toBe(0);
    expect(out).toMatch(/Started a private redis-server on port \d+/);
    expect(out).toContain("db.events: commit conflict");
  });
});
