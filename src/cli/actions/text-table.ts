/** Rows as aligned columns (two spaces apart, the last column unpadded), one line per row. */
export function textTable(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return (
    rows
      .map((row) =>
        row
          .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/** An epoch-ms time as ISO-8601 UTC with its age, e.g. `2026-11-29T12:00:00.000Z (4s ago)`. */
export function timeWithAge(epochMs: number, now: number = Date.now()): string {
  return `${new Date(epochMs).toISOString()} (${age(now - epochMs)})`;
}

/** How long ago an epoch-ms time was, e.g. `4s ago`. */
export function ago(epochMs: number, now: number = Date.now()): string {
  return age(now - epochMs);
}

function age(ms: number): string {
  if (ms < 0) return 'in the future';
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s}s ago`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m}m ago`;
  const h = Math.round(m / 60);
  return h < 48 ? `${h}h ago` : `${Math.round(h / 24)}d ago`;
}
