// The simulator's notion of "now": scenarios are written relative to it and tests move it forward
// instead of sleeping.

import { CodedError, ErrorCode } from "../errors.js";

export interface SimClock {
  now(): number;
  advance(ms: number): void;
}

export function createSimClock(startMs: number = Date.now()): SimClock {
  let current = startMs;
  return {
    now: () => current,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) {
        throw new CodedError(ErrorCode.UsageInvalid, `cannot advance the simulator clock by ${ms} ms`, {
          hint: "pass a finite, non-negative number of milliseconds: the clock only moves forward",
        });
      }
      current += ms;
    },
  };
}
