import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { batchCalls } from "../../src/adapters/redis/batch-calls.js";

describe("batchCalls with quietMs", () => {
  it("sends a burst once it is over, as one batch, and answers each call", async () => {
    const sent: number[][] = [];
    // waitMs far beyond the test: only the quiet period can send the batch.
    const call = batchCalls<number, number>({
      maxBatch: 500,
      waitMs: 3_600_000,
      quietMs: 5,
      send: async (batch) => {
        sent.push([...batch]);
        return batch.map((n) => n * 10);
      },
    });
    const answers: Promise<number>[] = [];
    for (let n = 1; n <= 20; n++) {
      answers.push(call(n));
      await nextTurn();
    }
    expect(await Promise.all(answers)).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 10));
    expect(sent).toEqual([Array.from({ length: 20 }, (_, i) => i + 1)]);
  });

  it("still sends at maxBatch in the middle of a burst", async () => {
    const sizes: number[] = [];
    const call = batchCalls<number, boolean>({
      maxBatch: 3,
      waitMs: 3_600_000,
      quietMs: 5,
      send: async (batch) => {
        sizes.push(batch.length);
        return batch.map(() => true);
      },
    });
    await Promise.all([1, 2, 3, 4].map((n) => call(n)));
    expect(sizes).toEqual([3, 1]);
  });
});
