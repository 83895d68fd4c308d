// Cold start of `iceberg-bot diagnose <table>`, `audit <table>` and `--help`: each a new process
// through ./iceberg-bot on the build, as a person runs it, against a bare Node script that asks the
// same sources the same questions (or prints the same text) from a new process too. The stand-in
// catalog, Flink and Connect run in a process of their own. Bare script and command alternate,
// the order flipping every round; medians and p99 over the counted rounds, after a warm-up round
// that also checks both sent the same requests. Goal: <= 1.5x the bare script, for each command.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { percentile } from "./_bot-setup.js";
import { median } from "./_processes.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const SCENARIO = "healthy-connect";
const TABLE = "db.clicks";

interface Urls {
  catalog: string;
  flink: string;
  connect: string;
}

interface Case {
  name: string;
  bot: string[];
  bare: string[];
}

interface Finished {
  ms: number;
  /** CPU time (user + system) of the process, in the kernel's 10 ms ticks. */
  cpuMs: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function run(): Promise<Record<string, number | string>> {
  const servers = await startServers();
  const scratch = mkdtempSync(join(tmpdir(), "cold-start-"));
  try {
    const env = {
      PATH: process.env.PATH ?? "",
      ICEBERG_CATALOG_URL: servers.urls.catalog,
      FLINK_REST_URL: servers.urls.flink,
      CONNECT_REST_URL: servers.urls.connect,
    };
    const bot = (args: string[]) => timedRun(join(root, "iceberg-bot"), args, env);
    const bare = (args: string[]) =>
      timedRun(process.execPath, [join(here, "_cold-start-bare.mjs"), ...args], env);

    // The floor for --help prints the very text the command prints.
    const helpFile = join(scratch, "usage.txt");
    writeFileSync(helpFile, (await bot(["--help"])).stdout);
    const sources = JSON.stringify(servers.urls);
    const cases: Case[] = [
      { name: "diagnose", bot: ["diagnose", TABLE, "--format", "json"], bare: ["sources", sources, TABLE] },
      { name: "audit", bot: ["audit", TABLE, "--format", "json"], bare: ["sources", sources, TABLE] },
      { name: "help", bot: ["--help"], bare: ["--help", helpFile] },
    ];

    // Warm-up round (file cache): each command's exit code, and the same requests as its floor.
    const out: Record<string, number | string> = { "cold.rounds (after a warm-up round)": ROUNDS };
    const expectedCode = new Map<string, number | null>();
    for (const c of cases) {
      await servers.requests();
      const ours = await bot(c.bot);
      const ourRequests = await servers.requests();
      const floor = await bare(c.bare);
      const floorRequests = await servers.requests();
      if (floor.code !== 0) throw new Error(`the bare ${c.name} script failed: ${floor.stderr}`);
      if (ours.stdout.length === 0) throw new Error(`iceberg-bot ${c.name} printed nothing: ${ours.stderr}`);
      expectedCode.set(c.name, ours.code);
      const same = sameRequests(ourRequests, floorRequests);
      out[`cold.${c.name}_requests (bot / bare, same?)`] =
        `${ourRequests.length} / ${floorRequests.length}, ${same ? "same" : "DIFFERENT"}`;
    }

    const times = new Map(cases.map((c) => [c.name, { bot: [] as number[], bare: [] as number[] }]));
    const cpu = new Map(cases.map((c) => [c.name, { bot: [] as number[], bare: [] as number[] }]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases) {
        const t = times.get(c.name)!;
        const order = round % 2 === 0 ? (["bare", "bot"] as const) : (["bot", "bare"] as const);
        for (const who of order) {
          const finished = who === "bot" ? await bot(c.bot) : await bare(c.bare);
          if (finished.code !== (who === "bot" ? expectedCode.get(c.name) : 0)) {
            throw new Error(`${who} ${c.name} exited with ${finished.code}: ${finished.stderr}`);
          }
          t[who].push(finished.ms);
          cpu.get(c.name)![who].push(finished.cpuMs);
        }
      }
    }

    out["cold.machine_load_average_at_end (1 min)"] = loadavg()[0] ?? 0;
    for (const c of cases) {
      const t = times.get(c.name)!;
      const ours = [...t.bot].sort((a, b) => a - b);
      const floor = [...t.bare].sort((a, b) => a - b);
      out[`cold.${c.name}_bare_p50_ms`] = median(floor);
      out[`cold.${c.name}_bare_p99_ms`] = percentile(floor, 99);
      out[`cold.${c.name}_p50_ms`] = median(ours);
      out[`cold.${c.name}_p99_ms`] = percentile(ours, 99);
      out[`cold.${c.name}_p50_ratio`] = median(ours) / median(floor);
      out[`cold.${c.name}_p99_ratio`] = percentile(ours, 99) / percentile(floor, 99);
      const perRound = t.bot.map((ms, i) => ms / t.bare[i]!);
      out[`cold.${c.name}_ratio_median_of_rounds`] = median(perRound);
      const used = cpu.get(c.name)!;
      out[`cold.${c.name}_cpu_ms (bot / bare, medians)`] = `${median(used.bot)} / ${median(used.bare)}`;
      out[`cold.${c.name}_cpu_ratio`] = median(used.bot) / median(used.bare);
    }
    return out;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    await servers.close();
  }
}

/**
 * Wall time of one process from spawn until it exits and its output is read, and its CPU time: the
 * shell it runs under prints its children's times (`times`) on stderr's last line. The machine is
 * shared, so wall time moves with the neighbours' load; CPU time much less.
 */
function timedRun(command: string, args: string[], env: Record<string, string>): Promise<Finished> {
  const started = performance.now();
  const script = '"$0" "$@"; status=$?; times >&2; exit $status';
  const child = spawn("/bin/sh", ["-c", script, command, ...args], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      const ms = performance.now() - started;
      const lines = stderr.trimEnd().split("\n");
      const children = lines.pop() ?? "";
      lines.pop(); // the shell's own times
      const [user = 0, system = 0] = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(
        ([, minutes, seconds]) => (Number(minutes) * 60 + Number(seconds)) * 1000,
      );
      resolve({ ms, cpuMs: user + system, code, stdout, stderr: lines.join("\n") });
    });
  });
}

function sameRequests(a: readonly string[], b: readonly string[]): boolean {
  return JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
}

async function startServers(): Promise<{
  urls: Urls;
  requests(): Promise<string[]>;
  close(): Promise<void>;
}> {
  const child = spawn(process.execPath, ["--import", "tsx", join(here, "_cold-start-servers.ts"), SCENARIO], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = lineReader(child);
  const urls = JSON.parse(await lines.next()) as Urls;
  return {
    urls,
    async requests() {
      child.stdin?.write("requests\n");
      return JSON.parse(await lines.next()) as string[];
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The child's stdout one line at a time, in order. */
function lineReader(child: ChildProcess): { next(): Promise<string> } {
  const ready: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let buffered = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else ready.push(line);
    }
  });
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`the stand-in sources exited with ${code}`))),
  );
  exited.catch(() => {});
  return {
    next: () => {
      const line = ready.shift();
      if (line !== undefined) return Promise.resolve(line);
      return Promise.race([new Promise<string>((resolve) => waiting.push(resolve)), exited]);
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await run());
}
