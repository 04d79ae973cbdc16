import { Option, type Command, type HelpConfiguration } from 'commander';

/**
 * How every command prints what an option or argument takes, one way: its description, then
 * `(one of: a, b; default: x)`, values bare. A default that says nothing to a user (an empty
 * list, false, a `--no-…` flag's true) is left out; a default that is not a value (`every
 * cluster of the pipeline`) is given as the option's `defaultValueDescription`.
 */
export const helpConfiguration: HelpConfiguration = {
  optionDescription: (option) =>
    described(option.description, option.argChoices, option.isBoolean() || option.negate ? undefined : option.defaultValue, option.defaultValueDescription),
  argumentDescription: (argument) => described(argument.description, argument.argChoices, argument.defaultValue, argument.defaultValueDescription),
};

function described(description: string, choices: readonly string[] | undefined, value: unknown, valueDescription: string | undefined): string {
  const shown = valueDescription ?? (typeof value === 'string' || typeof value === 'number' ? String(value) : undefined);
  const extra = [
    choices === undefined ? undefined : `one of: ${choices.join(', ')}`,
    shown === undefined || shown === '' ? undefined : `default: ${shown}`,
  ].filter((part): part is string => part !== undefined);
  return extra.length === 0 ? description : `${description} (${extra.join('; ')})`;
}

/** An option whose default is decided later, said in words: `(default: every cluster of the pipeline)`. */
export function optionDefaultingTo(flags: string, description: string, defaultDescription: string): Option {
  return new Option(flags, description).default(undefined, defaultDescription);
}

/**
 * What a usage error prints after the error itself: the command's usage line and where its help
 * is, rather than the whole help (`mirrorflow run` has 20 options; the mistake is in one line).
 */
export function usageAfterError(command: Command): string {
  const path: string[] = [];
  for (let c: Command | null = command; c !== null; c = c.parent) path.unshift(c.name());
  const name = path.join(' ');
  return `Usage: ${name} ${command.usage()}\nSee \`${name} --help\`.`;
}
