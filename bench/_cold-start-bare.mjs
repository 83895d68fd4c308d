// The cold-start floor for `diagnose` and `audit`: a bare Node script that asks the same sources
// the same questions in the same order (each step needs the answer before it), with Node's own
// fetch, parses every answer and prints them as JSON. With "--help" it prints the given file.
// Plain JavaScript, run by node itself like the built bot it is compared with.
import { readFileSync } from "node:fs";

const [mode, arg1, arg2] = process.argv.slice(2);
if (mode === "--help") {
  process.stdout.write(readFileSync(arg1, "utf8"));
} else {
  const urls = JSON.parse(arg1);
  const [namespace, table] = arg2.split(".");
  const get = async (base, path) => (await fetch(new URL(path, base))).json();
  // The sources' overviews, then the table, then the table's writer.
  const [jobs, connectors, config] = await Promise.all([
    get(urls.flink, "/jobs/overview"),
    get(urls.connect, "/connectors?expand=status&expand=info"),
    get(urls.catalog, "/v1/config"),
  ]);
  const metadata = await get(urls.catalog, `/v1/namespaces/${namespace}/tables/${table}`);
  const writers = Object.entries(connectors).filter(([, { info }]) =>
    (info.config["iceberg.tables"] ?? "").split(",").includes(arg2),
  );
  const writer = await Promise.all([
    ...writers.flatMap(([name]) => [
      get(urls.connect, `/connectors/${name}/status`),
      get(urls.connect, `/connectors/${name}/config`),
    ]),
    ...(writers.length > 0 ? [get(urls.connect, "/connector-plugins")] : []),
  ]);
  process.stdout.write(`${JSON.stringify({ jobs, connectors, config, metadata, writer }, null, 2)}\n`);
}
