// The loop both durable inboxes beside BullMQ are drained by (the command inbox's stream,
// inbox-mover.ts; the intake promises, services/intake-promises.ts): run a pass over what is owed,
// wait, run again; a failed pass is reported and tried again after a pause; stop waits for the
// pass under way, so nothing is left half-handled by a process that is stopping.

export interface DrainLoopOptions {
  /** One pass over what is owed; it may block (a stream read) as long as `interrupt` ends it. */
  pass(): Promise<void>;
  onError(error: Error): void;
  /** Between passes (default 0: the pass's own blocking read paces the loop). */
  idleMs?: number;
  /** After a failed pass (default 1 s). */
  retryMs?: number;
  /** Ends a pass blocked in Redis when the loop stops (closes its blocking connection). */
  interrupt?: () => void;
}

export interface DrainLoop {
  /** Stops the loop and waits for the pass under way. */
  stop(): Promise<void>;
}

export function startDrainLoop(options: DrainLoopOptions): DrainLoop {
  const idleMs = options.idleMs ?? 0;
  const retryMs = options.retryMs ?? 1000;
  let stopping = false;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      // The loop alone never keeps a process alive: its part is stopped when the process ends.
      const timer = setTimeout(resolve, ms).unref();
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const running = (async () => {
    while (!stopping) {
      try {
        await options.pass();
        if (idleMs > 0 && !stopping) await pause(idleMs);
      } catch (error) {
        if (stopping) break;
        options.onError(error as Error);
        await pause(retryMs);
      }
    }
  })();

  return {
    async stop() {
      stopping = true;
      wake?.();
      options.interrupt?.();
      await running;
    },
  };
}
