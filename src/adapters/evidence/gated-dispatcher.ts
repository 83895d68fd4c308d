// A dispatcher that waits for a slot before each request leaves: the sweep's way to keep to a
// source's requests-per-second budget, whichever client call (and however many requests) runs.

import type { Dispatcher } from "undici";
import { Agent } from "./undici-lean.js";

export type Gate = () => Promise<void>;

export function gatedDispatcher(
  gate: Gate,
  inner: Dispatcher = new Agent({ keepAliveTimeout: 10_000 }),
): Dispatcher {
  return inner.compose((dispatch) => (options, handler) => {
    // The gate never rejects (it waits); the request then runs exactly as it would have.
    void gate().then(() => dispatch(options, handler));
    return true;
  });
}
