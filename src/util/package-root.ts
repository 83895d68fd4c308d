// The installed package's own directory (for bundled playbooks and the version), found by walking up
// from this module so it works from src/ (tsx, vitest) and from dist/.

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "iceberg-bot";

function packageRoot(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest) && readPackage(manifest)?.name === PACKAGE_NAME) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function packageVersion(): string {
  const root = packageRoot();
  return (root && readPackage(path.join(root, "package.json"))?.version) || "unknown";
}

function readPackage(file: string): { name?: string; version?: string } | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
  } catch {
    return undefined;
  }
}
