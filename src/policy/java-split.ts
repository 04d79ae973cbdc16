/**
 * Java's `Pattern.compile(Pattern.quote(separator)).split(input)` (limit 0), which MM2's
 * `DefaultReplicationPolicy.topicSource` uses. It differs from JS `String.split`:
 *   - trailing empty strings are removed:        "a."   → ["a"],   "."  → []
 *   - a leading empty string is kept:             ".x"   → ["", "x"]
 *   - no match at all gives the whole input:      ""     → [""]
 *   - an empty separator splits between chars:    "ab"   → ["a", "b"] (never a leading "")
 */
export function javaSplitLiteral(input: string, separator: string): string[] {
  const parts: string[] = [];
  let index = 0;
  if (separator === '') {
    // Zero-width matches at 0..length; Java drops the one at 0 when it would give a leading "".
    for (let at = 1; at <= input.length; at++) {
      parts.push(input.slice(index, at));
      index = at;
    }
    if (input.length === 0) return [''];
  } else {
    let at = input.indexOf(separator, 0);
    if (at < 0) return [input];
    while (at >= 0) {
      parts.push(input.slice(index, at));
      index = at + separator.length;
      at = input.indexOf(separator, index);
    }
  }
  parts.push(input.slice(index));
  let end = parts.length;
  while (end > 0 && parts[end - 1] === '') end--;
  return parts.slice(0, end);
}
