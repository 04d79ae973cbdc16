/**
 * A suggestion for an unknown key of an mm2.properties file. A typo (`topics.exlude`) is found by
 * edit distance; a key garbled otherwise (`cluster.primary.brokerbootstrap.listservers`, words
 * run together, an extra word, another order) by its words: the known key whose words the
 * unknown one holds most of, each word found whole or inside a longer one
 * (`listservers` holds `servers`), wins, with fewer words left over on either side.
 */
import { didYouMean } from '../../plugins';

/** The candidate the unknown key most likely meant, if any is plausible. */
export function suggestKey(input: string, candidates: readonly string[]): string | undefined {
  return didYouMean(input, candidates) ?? byWords(input, candidates);
}

function words(key: string): string[] {
  return key
    .toLowerCase()
    .split(/[.\-_>]+/)
    .filter((w) => w !== '');
}

/** Whether the input's word `written` stands for the known word `known`. */
function holds(written: string, known: string): boolean {
  if (written === known) return true;
  // Inside a longer word only for words long enough not to match by chance (`id` is in many).
  return known.length >= 4 && written.includes(known);
}

function byWords(input: string, candidates: readonly string[]): string | undefined {
  const given = words(input);
  let best: { key: string; score: number; matched: number } | undefined;
  for (const candidate of candidates) {
    const known = words(candidate);
    if (known.length === 0) continue;
    const used = new Set<number>();
    let matched = 0;
    for (const word of known) {
      const at = given.findIndex((w, i) => !used.has(i) && holds(w, word));
      if (at < 0) {
        // Two known words run together in one written word (`brokerbootstrap` for `bootstrap`): the word may serve again.
        if (given.some((w) => w.length > word.length && holds(w, word))) matched += 1;
        continue;
      }
      used.add(at);
      matched += 1;
    }
    const missing = known.length - matched;
    const unused = given.filter((w, i) => !used.has(i) && !known.some((k) => holds(w, k))).length;
    const score = matched - missing - unused / 2;
    // Most of the known key's words, and at least two of them: one shared word is a coincidence.
    if (matched < 2 || missing * 2 > known.length) continue;
    if (best === undefined || score > best.score || (score === best.score && candidate.length < best.key.length)) best = { key: candidate, score, matched };
  }
  return best !== undefined && best.score >= 1 ? best.key : undefined;
}
