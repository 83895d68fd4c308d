// Counted nouns read as people write them: "1 commit", "38 commits", never "commit(s)".

/** "1 commit", "3 commits"; irregular plurals are passed in ("1 child", "2 children"). */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${groupDigits(count)} ${count === 1 ? singular : pluralForm}`;
}

/**
 * 12345 as "12,345", exactly as toLocaleString("en-US") writes it. Integers are grouped here: the
 * first toLocaleString of a process loads the locale data, 10-25 ms of a one-shot command's start.
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString("en-US");
  const grouped = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ",");
  return n < 0 ? `-${grouped}` : grouped;
}
