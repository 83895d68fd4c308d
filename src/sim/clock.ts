// The simulator's notion of "now": scenarios are written relative to it. A frozen clock moves only
// when told (tests, the demo); a running clock follows the wall clock from when the simulator
// started, so a bot or CLI reading the real time sees the world the scenario describes however
// long the simulator has been up. Both can be moved ahead on top of that.

import { CodedError, ErrorCode } from "../errors.js";

export interface SimClock {
  now(): number;
  advance(ms: number): void;
  /** True when the clock follows the wall clock between advances. */
  readonly running: boolean;
}

export interface SimClockOptions {
  /** Follow the wall clock (default false: frozen until advanced). */
  running?: boolean;
  /** The wall clock a running clock follows (default Date.now). */
  wall?: () => number;
}

export function createSimClock(startMs?: number, options: SimClockOptions = {}): SimClock {
  const wall = options.wall ?? Date.now;
  const wallAtStart = wall();
  const base = startMs ?? wallAtStart;
  const running = options.running ?? false;
  let advanced = 0;
  return {
    running,
    now: () => base + advanced + (running ? Math.max(0, wall() - wallAtStart) : 0),
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) {
        throw new CodedError(ErrorCode.UsageInvalid, `cannot advance the simulator clock by ${ms} ms`, {
          hint: "pass a finite, non-negative number of milliseconds: the clock only moves forward",
        });
      }
      advanced += ms;
    },
  };
}
