/** commander's collector for a repeatable option: each use appends its value (`--set a=1 --set b=2`). */
export const collectValues = (value: string, previous: string[]): string[] => [...previous, value];
