// The one polling helper of the test suite: waits until a probe returns something truthy (Slack
// calls, jobs and Redis writes land asynchronously) and fails naming what it waited for.
//
// There is no per-call deadline. A loaded 2-core machine can be ten times slower than an idle one,
// so any "within N ms" a test picked would be a claim about the machine, not the bot. The only
// bound is HANG_MS, a hang catcher that sits below the suite's own timeout (vitest.config.ts) so a
// hang fails with the name of what it waited for rather than a bare "test timed out".

/** How long a wait may last before it is reported as a hang. Not a speed claim. */
export const HANG_MS = 180_000;

/**
 * A client or investigation timeout for tests whose sources all answer: long enough that only a
 * hang, never a slow machine, reaches it. Tests of the timeouts themselves pick their own.
 */
export const HAPPY_PATH_TIMEOUT_MS = 60_000;

export interface UntilOptions {
  /** How often to probe; the only knob a caller has. */
  intervalMs?: number;
}

export async function until<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  { intervalMs = 40 }: UntilOptions = {},
): Promise<T> {
  const hangAt = Date.now() + HANG_MS;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > hangAt) throw new Error(`Still waiting for ${what} after ${HANG_MS / 1000} s: a hang`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Sleeps for a stretch the scenario itself needs (an outage that lasts, a window that elapses). */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
