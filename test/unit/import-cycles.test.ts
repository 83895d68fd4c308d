// No module under src/ reaches itself through its imports, type-only imports included: a circle
// means two modules that are really one, or a fact with no single owner.

import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { filesUnder } from "../support/files.js";
import { REPO_ROOT } from "../support/openapi.js";

type Graph = Map<string, string[]>;

/** Every relative import and re-export of each .ts file under `root`, as repository paths. */
function importGraph(root: string): Graph {
  const graph: Graph = new Map();
  for (const file of filesUnder(root).filter((f) => f.endsWith(".ts"))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => path.resolve(path.dirname(file), name).replace(/\.js$/, ".ts"));
    graph.set(
      path.relative(REPO_ROOT, file),
      targets.map((t) => path.relative(REPO_ROOT, t)),
    );
  }
  return graph;
}

/** The circles in a graph: each strongly connected group of more than one module (or a self-import). */
function circles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("import circles", () => {
  it("finds a circle closed by a type-only import, and none in a chain", () => {
    const circle: Graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(circles(circle)).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(
      circles(
        new Map([
          ["a.ts", ["b.ts"]],
          ["b.ts", ["c.ts"]],
          ["c.ts", []],
        ]),
      ),
    ).toEqual([]);
    const typeOnly = ts.preProcessFile(
      'import type { X } from "./x.js";\nexport * from "./y.js";',
      true,
      true,
    );
    expect(typeOnly.importedFiles.map((i) => i.fileName)).toEqual(["./x.js", "./y.js"]);
  });

  it("src/ has none, type-only imports counted", () => {
    const graph = importGraph(path.join(REPO_ROOT, "src"));
    expect(graph.size).toBeGreaterThan(300);
    expect(circles(graph)).toEqual([]);
  });
});
