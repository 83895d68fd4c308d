// Secrets named by `…File` settings are rotated without a restart: a Flink token file swapped the
// way a Kubernetes Secret volume does it (a new file renamed over the old), a password file
// rewritten in place, a catalog token file, each sent from the next request on by the same
// evidence ports. A file caught missing mid-rotation keeps the last good secret; the new values
// are secrets too (scrubbed from text).

import { mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createEvidencePorts } from "../../../src/adapters/evidence/from-config.js";
import { loadConfig, secretValues } from "../../../src/config.js";
import { readSmallFile } from "../../../src/util/read-small-file.js";
import { scrubAllForms } from "../../../src/util/secret-forms.js";

const dir = mkdtempSync(join(tmpdir(), "secret-rotation-"));
const servers: http.Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A source that answers with `body(path)` and records each Authorization header. */
async function source(body: (path: string) => unknown) {
  const seen: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body(req.url ?? "/")));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** What a Kubernetes Secret volume does: the new file is written aside and renamed over the old. */
function swap(path: string, text: string): void {
  const aside = `${path}.new`;
  writeFileSync(aside, text);
  renameSync(aside, path);
}

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

describe("secret files rotated while the bot runs", () => {
  it("sends each rotated secret from the next request on, and keeps the last good one mid-rotation", async () => {
    const eu = await source(() => ({ jobs: [] }));
    const us = await source(() => ({ jobs: [] }));
    const catalog = await source((path) =>
      path.startsWith("/v1/config") ? { defaults: {}, overrides: {} } : { namespaces: [] },
    );
    const euToken = write("eu-token", "eu-token-before-rotation\n");
    const usPassword = write("us-password", "us-password-before");
    const catalogToken = write("catalog-token", "catalog-token-before");
    const config = loadConfig(
      {
        BOT_CONFIG: stringify({
          sources: {
            flink: [
              { name: "eu", url: eu.url, auth: { type: "bearer", tokenFile: euToken } },
              { name: "us", url: us.url, auth: { type: "basic", username: "bot", passwordFile: usPassword } },
            ],
            catalogs: [{ name: "lake", url: catalog.url, auth: { type: "bearer", tokenFile: catalogToken } }],
          },
        }),
      },
      { readFile: (path) => readSmallFile(path) },
    );
    const ports = createEvidencePorts(config, { timeoutMs: 5000 });
    const ask = async () => {
      await ports.flink!.listJobs();
      await ports.catalog!.listNamespaces();
    };

    await ask();
    expect(eu.seen.at(-1)).toBe("Bearer eu-token-before-rotation");
    expect(us.seen.at(-1)).toBe(basic("bot", "us-password-before"));
    expect(catalog.seen.at(-1)).toBe("Bearer catalog-token-before");

    swap(euToken, "eu-token-after-rotation\n");
    // Rewritten in place, longer: a change of size and time.
    writeFileSync(usPassword, "us-password-after-rotation");
    swap(catalogToken, "catalog-token-after");
    await ask();
    expect(eu.seen.at(-1)).toBe("Bearer eu-token-after-rotation");
    expect(us.seen.at(-1)).toBe(basic("bot", "us-password-after-rotation"));
    expect(catalog.seen.at(-1)).toBe("Bearer catalog-token-after");

    // Mid-rotation the file is gone for a moment: the last good token still goes.
    unlinkSync(euToken);
    await ask();
    expect(eu.seen.at(-1)).toBe("Bearer eu-token-after-rotation");
    swap(euToken, "eu-token-third");
    await ask();
    expect(eu.seen.at(-1)).toBe("Bearer eu-token-third");

    // The rotated values are secrets as much as the first ones.
    const text = "echo: eu-token-third us-password-after-rotation catalog-token-after";
    const scrubbed = scrubAllForms(text, secretValues(config));
    expect(scrubbed).not.toMatch(/eu-token-third|us-password-after-rotation|catalog-token-after/);
  });
});
