// Where a key of a parsed YAML document is: BOT_CONFIG's and the playbooks' problems name the line.
// The yaml package is handed in rather than imported, so a command whose settings come from the
// environment alone never loads it.

import type * as Yaml from "yaml";

/** The parts of the yaml package that reading settings with their lines needs. */
export type YamlApi = Pick<typeof Yaml, "parseDocument" | "LineCounter" | "isMap" | "isScalar" | "isSeq">;

/** The line of the deepest node on `path` that exists (the key's line for map entries). */
export function lineOfPath(
  yaml: Pick<YamlApi, "isMap" | "isScalar" | "isSeq">,
  doc: Yaml.Document,
  path: readonly PropertyKey[],
  lineAt: (offset: number) => number,
): number {
  let node: unknown = doc.contents;
  let line = startLine(node, lineAt) ?? 1;
  for (const segment of path) {
    if (yaml.isMap(node)) {
      const pair = node.items.find((p) => yaml.isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) break;
      line = startLine(pair.key, lineAt) ?? line;
      node = pair.value;
    } else if (yaml.isSeq(node) && typeof segment === "number") {
      const item = node.items[segment];
      if (item === undefined) break;
      line = startLine(item, lineAt) ?? line;
      node = item;
    } else {
      break;
    }
  }
  return line;
}

function startLine(node: unknown, lineAt: (offset: number) => number): number | undefined {
  const range = (node as Yaml.Node | null | undefined)?.range;
  return range ? lineAt(range[0]) : undefined;
}
