// "Did you mean …?" for slash commands: the closest known word by edit distance, only when it is
// close enough to be a plausible typo.

export function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/** The nearest candidate within a third of the input's length (at least 2 edits), or undefined. */
export function closestMatch(input: string, candidates: readonly string[]): string | undefined {
  const needle = input.toLowerCase();
  let best: { value: string; distance: number } | undefined;
  for (const candidate of [...candidates].sort()) {
    const distance = editDistance(needle, candidate.toLowerCase());
    if (!best || distance < best.distance) best = { value: candidate, distance };
  }
  if (!best) return undefined;
  const limit = Math.max(2, Math.floor(input.length / 3));
  return best.distance <= limit ? best.value : undefined;
}
