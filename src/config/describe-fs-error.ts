/** A file-system failure in a few words, from its code; Node's own message repeats the path and more. */
export function describeFsError(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a folder';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    default:
      return code ?? (error instanceof Error ? error.message : String(error));
  }
}
