// No test may carry a time limit of its own below the suite's: a loaded 2-core machine runs several
// times slower than an idle one, and a tighter limit fails there for no fault of the bot. Waits go
// through test/support/poll.ts (whose only bound is a hang catcher); this keeps per-test, per-hook
// and per-describe timeouts from creeping back.

import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import config from "../../vitest.config.js";
import { filesUnder } from "../support/files.js";
import { REPO_ROOT } from "../support/openapi.js";
import { HANG_MS } from "../support/poll.js";

const TEST_CALLS = new Set(["it", "test", "describe", "beforeAll", "afterAll", "beforeEach", "afterEach"]);

/** `it`, `it.each(...)`, `describe.sequential`: the name of the test function a call goes back to. */
function testCallName(callee: ts.Expression): string | undefined {
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return testCallName(callee.expression);
  if (ts.isCallExpression(callee)) return testCallName(callee.expression);
  return undefined;
}

function numberOf(node: ts.Node | undefined): number | undefined {
  return node !== undefined && ts.isNumericLiteral(node) ? Number(node.text) : undefined;
}

/** The time limit one test call sets: a trailing number, or `{ timeout: N }` among its arguments. */
function limitOf(call: ts.CallExpression): number | undefined {
  const last = numberOf(call.arguments.at(-1));
  if (last !== undefined) return last;
  for (const argument of call.arguments) {
    if (!ts.isObjectLiteralExpression(argument)) continue;
    for (const property of argument.properties) {
      if (ts.isPropertyAssignment(property) && property.name.getText() === "timeout") {
        return numberOf(property.initializer);
      }
    }
  }
  return undefined;
}

/** Every test call in the file whose own limit is below `floorMs`, as "file:line (N ms)". */
function tightLimits(file: string, text: string, floorMs: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && TEST_CALLS.has(testCallName(node.expression) ?? "")) {
      const limit = limitOf(node);
      if (limit !== undefined && limit < floorMs) {
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        found.push(`${file}:${line} (${limit} ms)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("time limits in the test suite", () => {
  const suite = config.test ?? {};

  it("leave the hang catcher below the suite's own timeouts, so a hang names what it waited for", () => {
    expect(HANG_MS).toBeLessThan(suite.testTimeout ?? 0);
    expect(HANG_MS).toBeLessThan(suite.hookTimeout ?? 0);
  });

  it("finds a tight limit in any of the forms a test can set one", () => {
    const sample = [
      'it("a", async () => {}, 15_000);',
      'describe("b", { timeout: 60_000 }, () => {});',
      'it.each([1])("c", { timeout: 9000 }, () => {});',
      "beforeAll(async () => {}, 30_000);",
      'it("d", { timeout: 600_000 }, () => {});',
      "setTimeout(() => {}, 300);",
    ].join("\n");
    expect(tightLimits("sample.ts", sample, 240_000)).toEqual([
      "sample.ts:1 (15000 ms)",
      "sample.ts:2 (60000 ms)",
      "sample.ts:3 (9000 ms)",
      "sample.ts:4 (30000 ms)",
    ]);
  });

  it("are never set below the suite's by a test, a hook or a describe block", () => {
    const floor = Math.min(suite.testTimeout ?? 0, suite.hookTimeout ?? 0);
    const offenders = filesUnder(path.join(REPO_ROOT, "test"))
      .filter((file) => file.endsWith(".ts") && !file.includes(`${path.sep}fixtures${path.sep}`))
      .flatMap((file) => tightLimits(path.relative(REPO_ROOT, file), readFileSync(file, "utf8"), floor));
    expect(offenders).toEqual([]);
  });
});
