// Iceberg table property names and their defaults (Iceberg 1.x TableProperties), plus the Kafka
// Connect sink keys the rules read. Rules report the raw value (null when unset) and reason with
// the effective one, so a report shows both "unset" and what that means.

export const TABLE_DEFAULTS = {
  "commit.retry.num-retries": "4",
  "commit.retry.min-wait-ms": "100",
  "commit.retry.max-wait-ms": "60000",
  "commit.retry.total-timeout-ms": "1800000",
  "commit.status-check.num-retries": "3",
  "commit.status-check.min-wait-ms": "1000",
  "commit.status-check.max-wait-ms": "60000",
  "commit.status-check.total-timeout-ms": "1800000",
  "write.delete.isolation-level": "serializable",
  "write.update.isolation-level": "serializable",
  "write.merge.isolation-level": "serializable",
  "write.delete.mode": "copy-on-write",
  "write.update.mode": "copy-on-write",
  "write.merge.mode": "copy-on-write",
  "write.target-file-size-bytes": "536870912",
  "write.metadata.delete-after-commit.enabled": "false",
  "write.metadata.previous-versions-max": "100",
  "history.expire.max-snapshot-age-ms": "432000000",
  "history.expire.min-snapshots-to-keep": "1",
  "write.wap.enabled": "false",
} as const;

export type KnownTableProperty = keyof typeof TABLE_DEFAULTS;

export const CONNECT_DEFAULTS = {
  "iceberg.control.commit.interval-ms": "300000",
  "iceberg.control.commit.timeout-ms": "30000",
  "iceberg.control.commit.max-consecutive-failures": "1",
} as const;

export type KnownConnectKey = keyof typeof CONNECT_DEFAULTS;

/** The raw value as set on the table, or null when unset. */
export function rawProperty(properties: Record<string, string>, key: string): string | null {
  const value = properties[key];
  return value === undefined ? null : value;
}

/** The value in effect: the table's own, else Iceberg's default. */
export function effectiveProperty(properties: Record<string, string>, key: KnownTableProperty): string {
  return properties[key] ?? TABLE_DEFAULTS[key];
}

/** Numeric value in effect; a malformed number falls back to the default (Iceberg would fail to parse it). */
export function effectiveNumber(properties: Record<string, string>, key: KnownTableProperty): number {
  const parsed = Number(properties[key]);
  if (properties[key] !== undefined && Number.isFinite(parsed)) return parsed;
  return Number(TABLE_DEFAULTS[key]);
}

export function effectiveConnectNumber(config: Record<string, string>, key: KnownConnectKey): number {
  const parsed = Number(config[key]);
  if (config[key] !== undefined && Number.isFinite(parsed)) return parsed;
  return Number(CONNECT_DEFAULTS[key]);
}

/** Iceberg's (or the Connect sink's) default for a key, when the key is one we know. */
function defaultOf(key: string): string | undefined {
  return (TABLE_DEFAULTS as Record<string, string>)[key] ?? (CONNECT_DEFAULTS as Record<string, string>)[key];
}

/** A value as a diff shows it: "unset (default 4)" says what an unset key means. */
export function shownValue(key: string, value: string | null): string {
  if (value !== null) return value;
  const fallback = defaultOf(key);
  return fallback === undefined ? "unset" : `unset (default ${fallback})`;
}
