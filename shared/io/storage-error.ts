/**
 * File-system failures as one typed, one-line error. A full disk, a read-only or unwritable output
 * folder or too few file handles are the user's environment (exit 2, say what to change); anything
 * else (EIO, …) is still one line but an unexpected failure (exit 1). Completed tasks are already
 * published, so the run stays resumable after any of them.
 */

/** errno codes that describe the machine or folder the user chose, not a bug */
const ENVIRONMENT: Record<string, string> = {
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOTDIR: "a path component is not a directory",
  EISDIR: "is a directory",
  EMFILE: "too many open files (raise `ulimit -n`)",
  ENFILE: "too many open files in the system",
  ENAMETOOLONG: "file name too long",
  EEXIST: "already exists",
};

export class StorageError extends Error {
  override readonly name = "StorageError";
  constructor(
    message: string,
    /** errno code of the underlying failure */
    readonly code: string,
    /** true when the cause is the user's environment (full disk, read-only, permissions) */
    readonly environment: boolean,
  ) {
    super(message);
  }
}

/** Wraps an fs error as a StorageError naming the operation and path; other errors pass through. */
export function storageError(err: unknown, op: string, path: string): unknown {
  if (err instanceof StorageError) return err;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== "string" || !/^E[A-Z0-9]+$/.test(code)) return err;
  const what = ENVIRONMENT[code];
  const hint = code === "ENOSPC" || code === "EDQUOT" ? "; free some space and rerun the same command to resume" : "";
  const reason = what ?? ((err as Error).message.split("\n")[0] ?? code).replace(/^[A-Z0-9]+: /, "");
  return new StorageError(`cannot ${op} ${path}: ${reason} (${code})${hint}`, code, what !== undefined);
}

/** Runs an fs operation and rethrows its failure as a StorageError. */
export async function guardIo<T>(op: string, path: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw storageError(err, op, path);
  }
}
