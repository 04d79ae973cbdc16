/**
 * "Did you mean …?" suggestions for misspelt names (transform types, option keys).
 */

/** The candidate closest to `input`, if it is close enough to be a plausible typo. */
export function didYouMean(input: string, candidates: Iterable<string>): string | undefined {
  const needle = normalise(input);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(needle, normalise(candidate));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  // A third of the length tolerates one typo in short names and a few in long ones, without
  // suggesting an unrelated name for something that merely shares a couple of letters.
  const limit = Math.max(1, Math.floor(needle.length / 3));
  return bestDistance <= limit ? best : undefined;
}

/** Case and separators carry no meaning for a suggestion: `InsertHeader` ≈ `insert_header`. */
function normalise(name: string): string {
  return name.toLowerCase().replace(/[-_.\s]/g, '');
}

/** Optimal string alignment distance: Levenshtein plus transposition of neighbours. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[(i - 1) * cols + j]! + 1, d[i * cols + j - 1]! + 1, d[(i - 1) * cols + j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[(i - 2) * cols + j - 2]! + 1);
      }
      d[i * cols + j] = v;
    }
  }
  return d[rows * cols - 1]!;
}
