// Parses the scenario time strings ("-55m", "5m", "0") into milliseconds.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A positive duration such as "5m" or "1.5h", in milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text);
  if (!m) throw new RangeError(`"${text}" is not a duration like "5m" or "30s"`);
  return Math.round(Number(m[1]) * (UNIT_MS[m[2] as string] as number));
}

/** A relative time such as "-55m" or "0", resolved against `nowMs`. */
export function resolveRelative(text: string, nowMs: number): number {
  if (text === "0") return nowMs;
  if (!text.startsWith("-")) throw new RangeError(`"${text}" is not a relative time like "-55m" or "0"`);
  return nowMs - parseDuration(text.slice(1));
}
