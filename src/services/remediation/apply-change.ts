// Carries out one approved change against the catalog or Kafka Connect. The rules an on-call
// engineer follows by hand are built in: look before changing (it may already be there), never
// force past a concurrent change, and never retry a commit whose outcome is unknown: reload and
// say what is actually there.

import type { TableRef } from "../../core/evidence/model.js";
import type { StepId } from "../../core/ids.js";
import { isReversible } from "../../core/remediation/change.js";
import type { PreviousValues, RemediationEvent } from "../../core/remediation/walk.js";
import type { Change, PropertyChange } from "../../core/report/schema.js";
import { formatTableName } from "../../core/table-name.js";
import { asCodedError, CodedError, ErrorCode } from "../../errors.js";
import type { CatalogPort, ConnectPort, EvidencePorts } from "../ports.js";

/** Where changes go: a change naming its catalog goes to that named one, with its credentials. */
export type ApplyPorts = Pick<EvidencePorts, "catalog" | "catalogs" | "connect">;

export interface ApplyContext {
  table: TableRef;
  /** The table uuid the proposal was made against; the commit asserts it. */
  expectedUuid?: string;
}

interface Drift {
  key: string;
  /** What the proposal assumed (its `current`). */
  assumed: string | null;
  /** What is there now. */
  now: string | null;
}

export type ApplyOutcome =
  /** Done now. `previous` holds the values before, for a revert. */
  | { status: "applied"; previous: PreviousValues; detail: string }
  /** Already in place before this call (e.g. a worker died after applying); nothing was sent. */
  | { status: "already-applied"; previous: PreviousValues; detail: string }
  /** The call failed in a way that hid its outcome, and a reload shows the change is there. */
  | { status: "applied-confirmed"; previous: PreviousValues; detail: string }
  /** Someone else changed the target; nothing was forced. `stillValid`: the proposal's assumptions still hold. */
  | { status: "conflict-rechecked"; stillValid: boolean; drift: Drift[]; detail: string }
  /** Nothing changed (a refusal, or the reload shows the change is absent). */
  | { status: "not-applied"; detail: string; code: ErrorCode }
  /** The call failed and the reload failed too: nobody can tell. */
  | { status: "unknown"; detail: string; code: ErrorCode };

export async function applyChange(
  ports: ApplyPorts,
  change: Change,
  context: ApplyContext,
): Promise<ApplyOutcome> {
  switch (change.kind) {
    case "table-properties": {
      const named = change.catalogSource ? ports.catalogs?.byName(change.catalogSource) : undefined;
      if (change.catalogSource && ports.catalogs && !named)
        throw new CodedError(
          ErrorCode.ConfigInvalid,
          `No catalog is named ${change.catalogSource} any more`,
          {
            hint: "The proposal was made for a catalog BOT_CONFIG no longer declares; check sources.catalogs.",
          },
        );
      // Where the table lives, as messages name it (" in catalog lake-eu").
      const where = change.catalogSource ? ` in catalog ${change.catalogSource}` : "";
      return applyTableProperties(
        named?.port ?? need(ports.catalog, "catalog"),
        change.changes,
        context,
        `${formatTableName(context.table)}${where}`,
      );
    }
    case "connector-config":
      return applyConnectorConfig(
        need(ports.connect, "connect"),
        change.connector,
        change.changes,
        change.cluster,
      );
    case "connector-restart":
      return restartConnector(need(ports.connect, "connect"), change.connector, change, change.cluster);
    case "read-only-check":
      throw new CodedError(ErrorCode.UsageInvalid, "A read-only check changes nothing to apply", {
        hint: "The bot runs the check itself; nothing needs applying.",
      });
    case "manual":
      throw new CodedError(ErrorCode.UsageInvalid, "A manual step cannot be applied by the bot", {
        hint: "Run the statement shown in the proposal, then mark the step done by hand.",
      });
  }
}

/**
 * The change that undoes `change`, given the values it replaced: applied, it puts them back in one
 * call (unset keys are removed again).
 */
export function inverseChange(change: Change, previous: PreviousValues): Change {
  if (!isReversible(change)) {
    throw new CodedError(ErrorCode.UsageInvalid, `A ${change.kind} change cannot be reverted`, {
      hint: "Only property and connector config changes can be undone by the bot.",
    });
  }
  const changes = change.changes.map((c) => ({
    key: c.key,
    current: c.proposed,
    proposed: c.key in previous ? (previous[c.key] ?? null) : c.current,
  }));
  return { ...change, changes };
}

/** The walk event that records an outcome (what the apply worker feeds back to the machine). */
export function outcomeEvent(stepId: StepId, outcome: ApplyOutcome): RemediationEvent {
  switch (outcome.status) {
    case "applied":
    case "already-applied":
    case "applied-confirmed":
      return { type: "apply-succeeded", stepId, previous: outcome.previous, detail: outcome.detail };
    case "conflict-rechecked":
      return { type: "apply-failed", stepId, outcome: "conflict", message: outcome.detail };
    case "not-applied":
      return { type: "apply-failed", stepId, outcome: "error", message: outcome.detail };
    case "unknown":
      return { type: "apply-failed", stepId, outcome: "unknown", message: outcome.detail };
  }
}

// ---------------------------------------------------------------------------------------------

async function applyTableProperties(
  catalog: CatalogPort,
  changes: PropertyChange[],
  context: ApplyContext,
  name: string,
): Promise<ApplyOutcome> {
  const read = await preRead(() => catalog.loadTable(context.table), name);
  if ("status" in read) return read;
  const before = read.value;
  if (context.expectedUuid && before.uuid !== context.expectedUuid) {
    return {
      status: "conflict-rechecked",
      stillValid: false,
      drift: [],
      detail: `${name} is a different table now (uuid ${before.uuid}, the proposal was for ${context.expectedUuid}); nothing was changed.`,
    };
  }
  const pre = precheck(changes, before.properties, name);
  if (pre) return pre;

  const previous = valuesOf(changes, before.properties);
  try {
    await catalog.commitProperties(context.table, {
      expectedUuid: context.expectedUuid ?? before.uuid,
      ...toCommit(changes),
    });
    return { status: "applied", previous, detail: `Set ${describe(changes)} on ${name}.` };
  } catch (error) {
    const coded = asCodedError(error);
    if (coded.details?.status === 409) {
      return recheckAfterConflict(
        changes,
        () => catalog.loadTable(context.table).then((t) => t.properties),
        name,
      );
    }
    if (coded.code === ErrorCode.ChangeOutcomeUnknown) {
      return reloadAndReport(
        changes,
        previous,
        () => catalog.loadTable(context.table).then((t) => t.properties),
        name,
        coded,
      );
    }
    return notApplied(coded, `Nothing was changed on ${name}: ${coded.message}`);
  }
}

async function applyConnectorConfig(
  connect: ConnectPort,
  connector: string,
  changes: PropertyChange[],
  cluster?: string,
): Promise<ApplyOutcome> {
  const what = connectorName(connector, cluster);
  const readConfig = () => connect.getConnectorEvidence(connector, cluster).then((e) => e.config);
  const read = await preRead(readConfig, what);
  if ("status" in read) return read;
  const before = read.value;
  const pre = precheck(changes, before, what);
  if (pre) return pre;

  // PUT replaces the whole config, so the change is merged into what is there right now.
  const merged: Record<string, string> = { ...before };
  for (const c of changes) {
    if (c.proposed === null) delete merged[c.key];
    else merged[c.key] = c.proposed;
  }
  const previous = valuesOf(changes, before);
  try {
    await connect.updateConfig(connector, merged, cluster);
    return { status: "applied", previous, detail: `Set ${describe(changes)} on ${what}.` };
  } catch (error) {
    const coded = asCodedError(error);
    if (refusedOutright(coded)) return notApplied(coded, `Nothing was changed on ${what}: ${coded.message}`);
    return reloadAndReport(changes, previous, readConfig, what, coded);
  }
}

async function restartConnector(
  connect: ConnectPort,
  connector: string,
  options: { includeTasks: boolean; onlyFailed: boolean },
  cluster?: string,
): Promise<ApplyOutcome> {
  const read = await preRead(
    () => connect.getConnectorEvidence(connector, cluster),
    connectorName(connector, cluster),
  );
  if ("status" in read) return read;
  const before = read.value.connector;
  const failed = failedParts(before);
  if (options.onlyFailed && failed.length === 0) {
    return {
      status: "already-applied",
      previous: {},
      detail: `Connector ${connector} has nothing failed to restart (${before.state}, ${before.tasks.length} tasks).`,
    };
  }
  try {
    const result = await connect.restart(connector, options, cluster);
    const restarting = result.status ? ` Now: ${summary(result.status)}.` : "";
    return {
      status: "applied",
      previous: {},
      detail: `Restarted ${failed.length > 0 ? failed.join(", ") : "the connector"} of ${connector} (HTTP ${result.httpStatus}).${restarting}`,
    };
  } catch (error) {
    const coded = asCodedError(error);
    if (refusedOutright(coded)) {
      return notApplied(coded, `Connector ${connector} was not restarted: ${coded.message}`);
    }
    const reread = await readOr(
      () => connect.getConnectorEvidence(connector, cluster),
      (reloadError) => unknown(`restart of ${connector}`, coded, reloadError),
    );
    if ("status" in reread) return reread;
    const after = reread.value.connector;
    if (failedParts(after).length === 0) {
      return {
        status: "applied-confirmed",
        previous: {},
        detail: `The restart call failed (${coded.message}) but ${connector} shows nothing failed now: ${summary(after)}.`,
      };
    }
    return notApplied(
      coded,
      `The restart call failed (${coded.message}) and ${connector} still has failed parts: ${summary(after)}.`,
    );
  }
}

/** What a read returns, or the outcome `failed` makes of its error. */
async function readOr<T>(
  read: () => Promise<T>,
  failed: (error: unknown) => ApplyOutcome,
): Promise<{ value: T } | ApplyOutcome> {
  try {
    return { value: await read() };
  } catch (error) {
    return failed(error);
  }
}

/** Reading before a change sends nothing, so when the read fails nothing changed. */
function preRead<T>(read: () => Promise<T>, what: string): Promise<{ value: T } | ApplyOutcome> {
  return readOr(read, (error) => {
    const coded = asCodedError(error);
    return notApplied(
      coded,
      `Could not read ${what} before changing it, so nothing was sent: ${coded.message}`,
    );
  });
}

/** Before sending anything: already there, or the values moved since the proposal. */
function precheck(
  changes: PropertyChange[],
  current: Readonly<Record<string, string>>,
  what: string,
): ApplyOutcome | undefined {
  if (inPlace(changes, current)) {
    return {
      status: "already-applied",
      previous: Object.fromEntries(changes.map((c) => [c.key, c.current])),
      detail: `${describe(changes)} already in place on ${what}; nothing was sent.`,
    };
  }
  const drift = driftOf(changes, current);
  if (drift.length > 0) {
    return {
      status: "conflict-rechecked",
      stillValid: false,
      drift,
      detail: `${what} changed since the proposal (${describeDrift(drift)}); nothing was changed.`,
    };
  }
  return undefined;
}

async function recheckAfterConflict(
  changes: PropertyChange[],
  reload: () => Promise<Readonly<Record<string, string>>>,
  what: string,
): Promise<ApplyOutcome> {
  const current = await readOr(reload, (error) => ({
    status: "conflict-rechecked",
    stillValid: false,
    drift: [],
    detail: `${what} changed concurrently and could not be reloaded (${asCodedError(error).message}); nothing was changed.`,
  }));
  if ("status" in current) return current;
  const drift = driftOf(changes, current.value);
  return {
    status: "conflict-rechecked",
    stillValid: drift.length === 0,
    drift,
    detail:
      drift.length === 0
        ? `Another commit landed on ${what} first; the properties are still as the proposal assumed, so it can be approved again.`
        : `Another commit landed on ${what} first and changed ${describeDrift(drift)}; the proposal needs refreshing.`,
  };
}

async function reloadAndReport(
  changes: PropertyChange[],
  previous: PreviousValues,
  reload: () => Promise<Readonly<Record<string, string>>>,
  what: string,
  cause: CodedError,
): Promise<ApplyOutcome> {
  const current = await readOr(reload, (reloadError) => unknown(`the change to ${what}`, cause, reloadError));
  if ("status" in current) return current;
  if (inPlace(changes, current.value)) {
    return {
      status: "applied-confirmed",
      previous,
      detail: `The call failed (${cause.message}) but a reload shows ${describe(changes)} in place on ${what}.`,
    };
  }
  return notApplied(
    cause,
    `The call failed (${cause.message}) and a reload shows ${what} unchanged; it was not retried.`,
  );
}

function notApplied(cause: CodedError, detail: string): ApplyOutcome {
  return { status: "not-applied", code: cause.code, detail };
}

function unknown(what: string, cause: CodedError, reloadError: unknown): ApplyOutcome {
  return {
    status: "unknown",
    code: ErrorCode.ChangeOutcomeUnknown,
    detail: `Not known whether ${what} landed: the call failed (${cause.message}) and so did the reload (${asCodedError(reloadError).message}). Check by hand before trying again.`,
  };
}

/** Every value the change sets is what is there now. */
function inPlace(changes: PropertyChange[], current: Readonly<Record<string, string>>): boolean {
  return changes.every((c) => (current[c.key] ?? null) === c.proposed);
}

function connectorName(connector: string, cluster: string | undefined): string {
  return `connector ${connector}${cluster ? ` on ${cluster}` : ""}`;
}

function driftOf(changes: PropertyChange[], current: Readonly<Record<string, string>>): Drift[] {
  return changes
    .map((c) => ({ key: c.key, assumed: c.current, now: current[c.key] ?? null }))
    .filter((d) => d.assumed !== d.now);
}

function valuesOf(changes: PropertyChange[], current: Readonly<Record<string, string>>): PreviousValues {
  return Object.fromEntries(changes.map((c) => [c.key, current[c.key] ?? null]));
}

function toCommit(changes: PropertyChange[]): { set: Record<string, string>; remove: string[] } {
  const set: Record<string, string> = {};
  const remove: string[] = [];
  for (const c of changes) {
    if (c.proposed === null) remove.push(c.key);
    else set[c.key] = c.proposed;
  }
  return { set, remove };
}

function describe(changes: PropertyChange[]): string {
  return changes.map((c) => `${c.key}: ${c.current ?? "(unset)"} → ${c.proposed ?? "(unset)"}`).join(", ");
}

function describeDrift(drift: Drift[]): string {
  return drift.map((d) => `${d.key} is ${d.now ?? "(unset)"}, expected ${d.assumed ?? "(unset)"}`).join(", ");
}

function failedParts(status: { state: string; tasks: { id: number; state: string }[] }): string[] {
  const parts = status.tasks.filter((t) => t.state === "FAILED").map((t) => `task ${t.id}`);
  if (status.state === "FAILED") parts.unshift("connector");
  return parts;
}

function summary(status: { state: string; tasks: { id: number; state: string }[] }): string {
  return `connector ${status.state}, tasks ${status.tasks.map((t) => `${t.id}=${t.state}`).join(" ") || "none"}`;
}

/** A 4xx or a rebalance refusal: the worker did nothing, so there is nothing to reload for. */
function refusedOutright(error: CodedError): boolean {
  if (error.code === ErrorCode.SourceRetryable || error.code === ErrorCode.AuthFailed) return true;
  return error.code === ErrorCode.SourceHttpStatus && Number(error.details?.status) < 500;
}

function need<T>(port: T | undefined, source: "catalog" | "connect"): T {
  if (port) return port;
  const setting = source === "catalog" ? "ICEBERG_CATALOG_URL" : "CONNECT_REST_URL";
  throw new CodedError(
    ErrorCode.ConfigInvalid,
    `No ${source} is configured, so this change cannot be applied`,
    {
      hint: `Set ${setting}, or make the change by hand and press Done by hand.`,
    },
  );
}
