// Counts as people read them, the same in Slack and in documents.

/** 3420 -> "3,420"; locale-free so output is the same on every machine. */
export function formatCount(value: number): string {
  const [whole = "0", fraction] = String(Math.abs(value)).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${value < 0 ? "-" : ""}${grouped}${fraction === undefined ? "" : `.${fraction}`}`;
}
