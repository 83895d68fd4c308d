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
  // Dependencies stay in node_modules, loaded by Node as they are installed; only zod and the
  // undici files the evidence clients use are bundled: zod so that its locales (a third of its
  // files, loaded by `import { z } from "zod"`) drop out, undici so that its two dozen files are
  // one read and HTTP/2 loads only for a connection that speaks it.
  plugins: [undiciWithoutEagerHttp2(), packagesExceptBundled(), sourceRewrites()],
  // undici's files are CommonJS: their require() of Node's own modules needs one in each chunk.
  banner: {
    js: 'import { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);',
  },
  sourcemap: "linked",
  logLevel: "warning",
});
chmodSync(join(outdir, "main.js"), 0o755);

/** Every package import stays an import, except zod's and undici's files (not its index). */
function packagesExceptBundled() {
  return {
    name: "packages-except-bundled",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) =>
        /^(zod(\/|$)|undici\/lib\/)/.test(args.path) ? undefined : { path: args.path, external: true },
      );
    },
  };
}

/**
 * undici's Client loads its HTTP/2 half, and with it node:http2, when it loads; it is used only
 * for a TLS connection that agreed on h2, which needs `allowH2`. The bundle loads it on that call.
 */
function undiciWithoutEagerHttp2() {
  const real = "undici-client-h2";
  return {
    name: "undici-without-eager-http2",
    setup(build) {
      build.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) =>
        args.importer.endsWith(join("undici", "lib", "dispatcher", "client.js"))
          ? { path: args.path, namespace: "lazy-client-h2" }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: "lazy-client-h2" }, () => ({
        contents: `module.exports = function connectH2(client, socket) { return require(${JSON.stringify(real)})(client, socket); };`,
        loader: "js",
      }));
      build.onResolve({ filter: new RegExp(`^${real}$`) }, () => ({
        path: join(root, "node_modules", "undici", "lib", "dispatcher", "client-h2.js"),
      }));
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
          // undici's files are bundled: their require() is the bundle's, not one made at run time.
          .replace(/^const require = createRequire\(import\.meta\.url\);$/m, "")
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
