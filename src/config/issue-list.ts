import { ConfigError, type ConfigIssue } from '../core/errors';

/**
 * The problems found in one pipeline file: every one is kept (a user fixes them all in one go),
 * a problem reached twice (a `flow_defaults` value used by three flows) is kept once, and they
 * come out in the order of the file.
 */
export class IssueList {
  private readonly issues: ConfigIssue[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly file: string) {}

  add(issue: Omit<ConfigIssue, 'file'> & { readonly file?: string }): void {
    const key = JSON.stringify([issue.path, issue.message, issue.path === undefined ? issue.line : undefined]);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.issues.push({ file: this.file, ...issue });
  }

  get size(): number {
    return this.issues.length;
  }

  /** In file order; problems with no line (from `--set`) last. */
  sorted(): ConfigIssue[] {
    return this.issues
      .map((issue, index) => ({ issue, index }))
      .sort((a, b) => {
        // Connector configs are read together: each file's problems together.
        if (a.issue.file !== b.issue.file) return (a.issue.file ?? '').localeCompare(b.issue.file ?? '');
        const lineA = a.issue.line ?? Infinity;
        const lineB = b.issue.line ?? Infinity;
        if (lineA !== lineB) return lineA - lineB;
        const columnA = a.issue.column ?? 0;
        const columnB = b.issue.column ?? 0;
        return columnA !== columnB ? columnA - columnB : a.index - b.index;
      })
      .map(({ issue }) => issue);
  }

  error(): ConfigError {
    return new ConfigError(this.sorted());
  }
}
