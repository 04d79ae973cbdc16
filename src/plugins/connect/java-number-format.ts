/**
 * Java's `Double.toString` and `Float.toString`, which Jackson uses to write floating-point
 * numbers: plain decimals with at least one fraction digit from 10^-3 up to 10^7 (`2.5`,
 * `100.0`), otherwise computerized scientific notation (`1.0E7`, `1.0E-4`). Digits are the
 * shortest that read back as the same number (what JDK 19+ prints; JDK 17 differs in the last
 * digit for a few rare values).
 */

/** `Double.toString(value)`. */
export function javaDoubleToString(value: number): string {
  return format(value, shortestDigits(value));
}

/** `Float.toString(value)` for a value already rounded to float32. */
export function javaFloatToString(value: number): string {
  if (!Number.isFinite(value) || value === 0) return format(value, shortestDigits(value));
  for (let precision = 1; precision <= 9; precision++) {
    const text = value.toPrecision(precision);
    if (Math.fround(Number(text)) === value) return format(value, shortestDigits(Number(text)));
  }
  return format(value, shortestDigits(value));
}

/** The decimal digits (no leading or trailing zeros) and the exponent e of d.ddd × 10^e. */
function shortestDigits(value: number): { digits: string; exponent: number } {
  const [mantissa, exp] = Math.abs(value).toExponential().split('e') as [string, string];
  return { digits: mantissa.replace('.', '').replace(/0+$/, '') || '0', exponent: Number(exp) };
}

function format(value: number, { digits, exponent }: { digits: string; exponent: number }): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  if (value === 0) return `${sign}0.0`;
  const abs = Math.abs(value);
  if (abs >= 1e-3 && abs < 1e7) {
    if (exponent >= 0) {
      const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
      const fraction = digits.slice(exponent + 1) || '0';
      return `${sign}${whole}.${fraction}`;
    }
    return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  }
  return `${sign}${digits[0]}.${digits.slice(1) || '0'}E${exponent}`;
}
