// Files the configuration names (a secret's tokenFile, BOT_CONFIG as a file, the service account
// token) are read with the CLI's own reader: a FIFO no one writes to, /dev/zero and a 300 MB file
// are refused at once with what they are, instead of hanging start-up or filling memory; a
// regular file still reads.

import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inClusterConnection } from "../../../src/adapters/evidence/kubernetes/credentials.js";
import { readFileOf } from "../../../src/cli/io.js";
import { loadConfig } from "../../../src/config.js";
import { ErrorCode } from "../../../src/errors.js";
import { MAX_SMALL_FILE_BYTES } from "../../../src/util/read-small-file.js";

const dir = mkdtempSync(join(tmpdir(), "secret-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The reader every CLI command hands to loadConfig (no injected one). */
const readFile = readFileOf({ env: {}, stdout: process.stdout, stderr: process.stderr });

function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync("mkfifo", [path]);
  return path;
}

/** A sparse file of that many bytes: big on stat, nothing on disk. */
function sparse(name: string, bytes: number): string {
  const path = join(dir, name);
  const fd = openSync(path, "w");
  closeSync(fd);
  execFileSync("truncate", ["-s", String(bytes), path]);
  return path;
}

function withTokenFile(path: string): string {
  return [
    "sources:",
    "  flink:",
    "    - name: eu",
    "      url: http://flink-eu:8081",
    `      auth: { type: bearer, tokenFile: ${JSON.stringify(path)} }`,
  ].join("\n");
}

function startupError(env: Record<string, string>): { code: string; message: string } {
  try {
    loadConfig(env, { readFile });
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error("loadConfig accepted it");
}

describe("files named in the configuration", () => {
  it("refuses a FIFO as a token file at once, saying what it is", () => {
    const path = fifo("token.fifo");
    const error = startupError({ BOT_CONFIG: withTokenFile(path) });
    expect(error.code).toBe(ErrorCode.ConfigInvalid);
    expect(error.message).toContain(
      `sources.flink.0.auth.tokenFile: ${path} is a FIFO (named pipe), not a regular file; name a regular file`,
    );
  });

  it("refuses /dev/zero as a token file, and a 300 MB one, without reading them", () => {
    const zero = startupError({ BOT_CONFIG: withTokenFile("/dev/zero") });
    expect(zero.message).toContain("/dev/zero is a character device, not a regular file");
    const huge = sparse("huge.token", 300 * 1024 * 1024);
    const big = startupError({ BOT_CONFIG: withTokenFile(huge) });
    expect(big.message).toContain(`${huge} is larger than ${MAX_SMALL_FILE_BYTES} bytes`);
  });

  it("refuses BOT_CONFIG naming a FIFO, and reads a regular token file as before", () => {
    const config = fifo("bot.yaml");
    expect(startupError({ BOT_CONFIG: config }).message).toContain(`${config} is a FIFO (named pipe)`);
    const token = join(dir, "flink.token");
    writeFileSync(token, "jm-token-1234\n");
    const loaded = loadConfig({ BOT_CONFIG: withTokenFile(token) }, { readFile });
    expect(loaded.sources.flink[0]?.auth).toEqual({
      kind: "bearer",
      token: "jm-token-1234",
      tokenFile: token,
    });
  });

  it("refuses a FIFO as the service account token with the fix, instead of waiting for a writer", () => {
    const sa = join(dir, "sa");
    execFileSync("mkdir", [sa]);
    fifo("sa/token");
    writeFileSync(join(sa, "ca.crt"), "not used");
    let message = "";
    try {
      inClusterConnection({ service: { host: "127.0.0.1", port: 6443 }, serviceAccountDir: sa });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`the service account token: ${join(sa, "token")} is a FIFO (named pipe)`);
  });
});
