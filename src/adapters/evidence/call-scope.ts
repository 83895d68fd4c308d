// What one catalog call learns while its body passes through our fetch, kept in an async scope
// around that call so that concurrent loads never see each other's.

import { AsyncLocalStorage } from "node:async_hooks";

interface CallScope {
  /** LoadTableResult's metadata-location, which iceberg-js drops (it returns only `metadata`). */
  metadataLocation?: string;
}

const scope = new AsyncLocalStorage<CallScope>();

/** Runs one catalog call with its own scope. */
export function withCallScope<T>(run: () => Promise<T>): Promise<T> {
  return scope.run({}, run);
}

/** Keeps the body's metadata-location for the call in progress (see metadataLocationOfCall). */
export function recordMetadataLocation(location: string): void {
  const current = scope.getStore();
  if (current) current.metadataLocation = location;
}

export function metadataLocationOfCall(): string | undefined {
  return scope.getStore()?.metadataLocation;
}
