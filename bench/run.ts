// Runs every benchmark in bench/ one after another and prints what each measured.
// `npm run bench` runs all; `npm run bench -- diagnose-scale` runs the named ones. The bot's
// processes run from the build, as an operator runs them, so the build is made first.

import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

type BenchResult = Record<string, number | string>;
interface BenchModule {
  run(): Promise<BenchResult>;
}

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const names = readdirSync(here)
  .filter((file) => file.endsWith(".ts") && file !== "run.ts" && !file.startsWith("_"))
  .map((file) => file.replace(/\.ts$/, ""))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

const build = spawnSync("npm", ["run", "--silent", "build"], { cwd: join(here, ".."), stdio: "inherit" });
if (build.status !== 0) {
  process.stderr.write("npm run build failed: the benchmarks run the built bot\n");
  process.exit(1);
}

let failed = 0;
for (const name of names) {
  const module = (await import(pathToFileURL(join(here, `${name}.ts`)).href)) as Partial<BenchModule>;
  if (typeof module.run !== "function") continue;
  process.stdout.write(`\n== ${name}\n`);
  try {
    const result = await module.run();
    for (const [key, value] of Object.entries(result)) {
      process.stdout.write(
        `  ${key.padEnd(44)} ${typeof value === "number" ? formatNumber(value) : value}\n`,
      );
    }
  } catch (error) {
    failed += 1;
    process.stdout.write(`  failed: ${(error as Error).stack ?? String(error)}\n`);
  }
}
process.exit(failed === 0 ? 0 : 1);

function formatNumber(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString("en-US") : value.toFixed(2);
}
