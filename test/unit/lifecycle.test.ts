// The lifecycle stops parts in reverse order, and a part that never finishes stopping (a blocking
// read on a Redis node that died) does not keep the parts started before it from stopping.

import { describe, expect, it } from "vitest";
import { Lifecycle, type Part } from "../../src/bot/part.js";

describe("Lifecycle", () => {
  it("stops the rest after a part that hangs, and names it", async () => {
    const warnings: Array<Record<string, unknown>> = [];
    const log = { info: () => {}, warn: (obj: object) => warnings.push(obj as Record<string, unknown>) };
    const lifecycle = new Lifecycle(log, 20);
    const stopped: string[] = [];
    const part = (name: string, stop: () => Promise<void>): Part => ({ name, stop });
    await lifecycle.start(part("connections", async () => void stopped.push("connections")));
    await lifecycle.start(part("sweep", () => new Promise<void>(() => {})));
    await lifecycle.start(part("receiver", async () => void stopped.push("receiver")));
    await lifecycle.stop();
    expect(stopped).toEqual(["receiver", "connections"]);
    expect(warnings).toEqual([expect.objectContaining({ part: "sweep" })]);
  });
});
