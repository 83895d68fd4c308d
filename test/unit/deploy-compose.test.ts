// docker-compose.yml as an operator runs it: every service comes back after a crash or a reboot,
// Redis keeps its data and never evicts the bot's keys, the image is tagged with the release, and a
// source .env sets empty is turned off (not pointed at the simulator).

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { interpolate, readCompose, readDotEnv } from "../support/compose.js";

const readFile = (file: string) => readFileSync(file, "utf8");
const root = path.resolve(import.meta.dirname, "../..");
const compose = readCompose(path.join(root, "docker-compose.yml"));
const dotenv = readDotEnv(path.join(root, ".env.example"));
const version = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string })
  .version;

/** The bot's environment as compose would pass it with this .env, BOT_CONFIG read from its source. */
function botEnv(env: Record<string, string>): Record<string, string> {
  const bot = compose.services.bot;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(bot?.environment ?? {})) out[name] = interpolate(value, env);
  for (const volume of bot?.volumes ?? []) {
    const [source, target] = interpolate(volume, env).split(":");
    if (target === out.BOT_CONFIG) out.BOT_CONFIG = path.resolve(root, source as string);
  }
  return out;
}

describe("docker-compose.yml", () => {
  it("restarts every service after a crash or a reboot, unless stopped by hand", () => {
    for (const [name, service] of Object.entries(compose.services))
      expect(service.restart, name).toBe("unless-stopped");
  });

  it("keeps Redis on disk and refuses writes when full rather than evicting the bot's keys", () => {
    const command = compose.services.redis?.command?.join(" ") ?? "";
    expect(command).toContain("--appendonly yes");
    expect(command).toContain("--maxmemory-policy noeviction");
    // And the operations guide says so for any Redis the bot runs on.
    const guide = readFileSync(path.join(root, "docs/operations.md"), "utf8");
    const redis = guide.slice(
      guide.indexOf("## Redis"),
      guide.indexOf("\n## ", guide.indexOf("## Redis") + 1),
    );
    for (const setting of [
      "appendonly yes",
      "appendfsync everysec",
      "maxmemory-policy noeviction",
      "maxmemory",
    ])
      expect(redis, setting).toContain(setting);
  });

  it("tags the bot's image with the release (package.json's version)", () => {
    for (const name of ["bot", "sim"])
      expect(compose.services[name]?.image, name).toBe(`iceberg-bot:${version}`);
  });

  it("turns a source off when .env sets it empty, and points at the sim only when .env leaves it out", () => {
    const sim = loadConfig(botEnv(dotenv), { readFile });
    expect(sim.sources.connect.map((c) => c.url)).toEqual(["http://sim:8183"]);
    for (const off of ["CONNECT_REST_URL", "FLINK_REST_URL", "PROMETHEUS_URL"]) {
      const env = botEnv({ ...dotenv, [off]: "" });
      expect(env[off], off).toBe("");
      const config = loadConfig(env, { readFile });
      const kinds = {
        CONNECT_REST_URL: "connect",
        FLINK_REST_URL: "flink",
        PROMETHEUS_URL: "prometheus",
      } as const;
      expect(config.sources[kinds[off as keyof typeof kinds]], off).toEqual([]);
    }
    // Left out of .env altogether: the sim's address, as before.
    const { CONNECT_REST_URL: _left, ...without } = dotenv;
    expect(botEnv(without).CONNECT_REST_URL).toBe("http://sim:8183");
  });
});
