import { Option } from 'commander';

/** `--unknown-keys`: MM2 drops a key it does not know without a word; mirrorflow refuses it unless told to warn. */
export function unknownKeysOption(): Option {
  return new Option(
    '--unknown-keys <mode>',
    'what an unknown key of an MM2 file is: error (a problem, with a suggestion), or warn (ignored with a warning, as MM2 ignores it: for files whose typos MM2 tolerated)',
  )
    .choices(['error', 'warn'])
    .default('error');
}
