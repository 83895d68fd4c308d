// docker-compose.yml and .env as compose reads them, for tests that check what compose would run.

import { readFileSync } from "node:fs";
import { parse } from "yaml";

export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  restart?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  profiles?: string[];
  stop_grace_period?: string;
  depends_on?: Record<string, { condition: string; required?: boolean }>;
}

export function readCompose(file: string): { services: Record<string, ComposeService> } {
  return parse(readFileSync(file, "utf8")) as { services: Record<string, ComposeService> };
}

/** .env syntax as compose reads it: KEY=VALUE lines, # comments. */
export function readDotEnv(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^\s*([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) env[m[1] as string] = (m[2] as string).trim();
  }
  return env;
}

/** Compose's interpolation: ${VAR}, ${VAR:-default} (empty counts as unset), ${VAR-default}. */
export function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(
    /\$\{([A-Z_][A-Z0-9_]*)(?:(:?-)([^}]*))?\}/g,
    (_, name: string, op?: string, fallback?: string) => {
      const value = env[name];
      if (op === ":-") return value === undefined || value === "" ? (fallback ?? "") : value;
      if (op === "-") return value === undefined ? (fallback ?? "") : value;
      return value ?? "";
    },
  );
}
