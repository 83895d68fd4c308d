// Per-endpoint fault injection: tests and the demo make a service slow, failing, silent or
// malformed without touching the scenario.

import { CodedError, ErrorCode } from "../errors.js";

export type SimService = "catalog" | "flink" | "connect" | "prometheus";
export type FaultKind = "latency" | "status" | "hang" | "reset" | "truncate" | "non-json";

export interface FaultSpec {
  service: SimService;
  /** The named cluster or catalog whose server it hits; default: every server of the service. */
  server?: string;
  /** Default: any method. */
  method?: string;
  /** Exact pathname, or a regex (a string starting with ^ is treated as a regex source). */
  path: string | RegExp;
  kind: FaultKind;
  /** latency: how long to wait before answering normally. */
  ms?: number;
  /** status: the HTTP status (default 500). */
  status?: number;
  /** status: the body (default a realistic error body for that service). */
  body?: unknown;
  /** How many requests it affects (default unlimited). */
  times?: number;
}

export interface FaultInjector {
  inject(spec: FaultSpec): string;
  clear(id?: string): void;
}

const KINDS: readonly FaultKind[] = ["latency", "status", "hang", "reset", "truncate", "non-json"];
const SERVICES: readonly SimService[] = ["catalog", "flink", "connect", "prometheus"];

interface ActiveFault {
  id: string;
  spec: FaultSpec;
  matcher: (pathname: string) => boolean;
  remaining: number;
}

export class SimFaultInjector implements FaultInjector {
  private readonly active: ActiveFault[] = [];
  private counter = 0;

  inject(spec: FaultSpec): string {
    if (!SERVICES.includes(spec.service)) {
      throw new CodedError(
        ErrorCode.UsageInvalid,
        `fault service must be one of ${SERVICES.join(", ")}, got ${String(spec.service)}`,
        { hint: "see FaultSpec in src/sim/faults.ts" },
      );
    }
    if (!KINDS.includes(spec.kind)) {
      throw new CodedError(
        ErrorCode.UsageInvalid,
        `fault kind must be one of ${KINDS.join(", ")}, got ${String(spec.kind)}`,
        { hint: "see FaultSpec in src/sim/faults.ts" },
      );
    }
    if (typeof spec.path !== "string" && !(spec.path instanceof RegExp)) {
      throw new CodedError(ErrorCode.UsageInvalid, "fault path must be a pathname or a regular expression", {
        hint: "see FaultSpec in src/sim/faults.ts",
      });
    }
    const pattern = spec.path;
    const matcher = toMatcher(pattern);
    const id = `fault-${++this.counter}`;
    this.active.push({ id, spec, matcher, remaining: spec.times ?? Number.POSITIVE_INFINITY });
    return id;
  }

  clear(id?: string): void {
    if (id === undefined) {
      this.active.length = 0;
      return;
    }
    const i = this.active.findIndex((f) => f.id === id);
    if (i >= 0) this.active.splice(i, 1);
  }

  /** The first fault that applies to this request; consumes one of its uses. */
  take(service: SimService, method: string, pathname: string, server?: string): FaultSpec | undefined {
    for (let i = 0; i < this.active.length; i++) {
      const f = this.active[i] as ActiveFault;
      if (f.spec.service !== service) continue;
      if (f.spec.server !== undefined && f.spec.server !== server) continue;
      if (f.spec.method && f.spec.method.toUpperCase() !== method.toUpperCase()) continue;
      if (!f.matcher(pathname)) continue;
      f.remaining -= 1;
      if (f.remaining <= 0) this.active.splice(i, 1);
      return f.spec;
    }
    return undefined;
  }
}

/** A string starting with ^ is a regex source (as it arrives over the admin route); else exact. */
function toMatcher(pattern: string | RegExp): (pathname: string) => boolean {
  if (pattern instanceof RegExp) return (p) => pattern.test(p);
  if (pattern.startsWith("^")) {
    const re = new RegExp(pattern);
    return (p) => re.test(p);
  }
  return (p) => p === pattern;
}
