// Bundles the iceberg-bot command after tsc has built dist/: dist/cli/main.js becomes one small
// entry plus chunks beside it, each command's code in its own chunk, loaded when the command runs.
// A cold start is mostly module loading (about 230 files for `diagnose`, 95 of them zod's, most of
// those locales nothing uses); a bundle reads a few files and leaves unused code out.
// Run by `npm run build`, after tsc, the Lua copy and the playbook snapshot.

import { chmodSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");
const outdir = join(root, "dist", "cli");

// Chunks from an earlier build would stay beside the new ones.
for (const file of readdirSync(outdir)) {
  if (file.startsWith("chunk-")) rmSync(join(outdir, file));
}

await build({
  absWorkingDir: root,
  entryPoints: { main: join(src, "cli", "main.ts") },
  outdir,
  chunkNames: "chunk-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  // Dependencies stay in node_modules, loaded by Node as they are installed; only zod is bundled,
  // so that its locales (a third of its files, loaded by `import { z } from "zod"`) drop out.
  plugins: [packagesExceptZod(), sourceRewrites()],
  sourcemap: "linked",
  logLevel: "warning",
});
chmodSync(join(outdir, "main.js"), 0o755);

/** Every package import stays an import, except zod's. */
function packagesExceptZod() {
  return {
    name: "packages-except-zod",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) =>
        /^zod(\/|$)/.test(args.path) ? undefined : { path: args.path, external: true },
      );
    },
  };
}

/**
 * Each module sees the `import.meta.url` it has in tsc's dist/ layout, not its chunk's: the Lua
 * scripts, the playbook snapshot and the worker entry are found beside the module that reads them.
 * Entry and chunks are all in dist/cli/, so the module's place is known relative to any of them.
 * And zod's `z` is a namespace object: imported by name, the whole of it is kept, all locales
 * included; as a namespace import, only the members the code uses.
 */
function sourceRewrites() {
  return {
    name: "source-rewrites",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!args.path.startsWith(src)) return undefined;
        const text = readFileSync(args.path, "utf8")
          .replace(/^import \{ z \} from "zod";$/m, 'import * as z from "zod";')
          .replaceAll(
            "import.meta.url",
            `new URL(${JSON.stringify(compiledPath(args.path))}, import.meta.url).href`,
          );
        return { contents: text, loader: "ts" };
      });
    },
  };
}

/** Where tsc puts a source file's module, relative to dist/cli/. */
function compiledPath(source) {
  const compiled = join(root, "dist", relative(src, source)).replace(/\.ts$/, ".js");
  return relative(outdir, compiled).split("\\").join("/");
}
