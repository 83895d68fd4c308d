import { describe, expect, it } from "vitest";
import { startDrainLoop } from "../../src/adapters/queue/drain-loop.js";

describe("drain loop (the durable inboxes' reader)", () => {
  it("reports a failed pass and runs again; stop waits for the pass under way", async () => {
    const errors: string[] = [];
    let passes = 0;
    let release: (() => void) | undefined;
    let blocked: (() => void) | undefined;
    const inSecondPass = new Promise<void>((resolve) => {
      blocked = resolve;
    });
    let finished = false;
    const loop = startDrainLoop({
      retryMs: 1,
      onError: (error) => errors.push(error.message),
      pass: async () => {
        passes++;
        if (passes === 1) throw new Error("redis blinked");
        blocked?.();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        finished = true;
      },
    });
    await inSecondPass;
    const stopped = loop.stop();
    let stopReturned = false;
    void stopped.then(() => {
      stopReturned = true;
    });
    await Promise.resolve();
    expect(stopReturned).toBe(false);
    release?.();
    await stopped;
    expect(finished).toBe(true);
    expect(errors).toEqual(["redis blinked"]);
    expect(passes).toBe(2);
  });

  it("interrupts a pass blocked in a read when it stops, without reporting it", async () => {
    const errors: Error[] = [];
    let fail: ((error: Error) => void) | undefined;
    let reading: (() => void) | undefined;
    const started = new Promise<void>((resolve) => {
      reading = resolve;
    });
    const loop = startDrainLoop({
      onError: (error) => errors.push(error),
      interrupt: () => fail?.(new Error("Connection is closed.")),
      pass: () =>
        new Promise<void>((_, reject) => {
          fail = reject;
          reading?.();
        }),
    });
    await started;
    await loop.stop();
    expect(errors).toEqual([]);
  });
});
