/**
 * Errors that describe bad input or a bad environment (a corrupt file, a missing store, a held LOCK,
 * a missing engine). The CLI prints them as one line and exits non-zero; anything else is a bug and
 * keeps its stack trace.
 */
/**
 * Marks lsmscope's errors whichever copy of this module made them: the CLI bundle and the TUI's modules
 * (tsc's output, util/es_import.ts) each hold one, and `instanceof` holds only within a copy.
 */
const USER_ERROR = Symbol.for("lsmscope.userError");

export class LsmscopeError extends Error {
  /** File the problem was found in, if any. */
  readonly file?: string;
  /** Byte offset inside `file`, if known. */
  readonly offset?: number;
  /** Suggested process exit code. */
  readonly exitCode: number;

  constructor(
    message: string,
    opts: { file?: string; offset?: number; exitCode?: number; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = "LsmscopeError";
    this.file = opts.file;
    this.offset = opts.offset;
    this.exitCode = opts.exitCode ?? 2;
  }

  get [USER_ERROR](): true {
    return true;
  }

  /** `file @ offset N: message`, the single line the CLI prints. */
  oneLine(): string {
    const where =
      this.file === undefined
        ? ""
        : this.offset === undefined
          ? `${this.file}: `
          : `${this.file} @ offset ${this.offset}: `;
    return `${where}${this.message}`.replace(/[\r\n]+/g, " ");
  }
}

/** Corrupt or truncated on-disk data. */
export class CorruptionError extends LsmscopeError {
  constructor(message: string, file: string, offset?: number, cause?: unknown) {
    super(message, { file, offset, cause });
    this.name = "CorruptionError";
  }
}

/** A feature needs something not present on this machine (the engine addon, a tool). */
export class MissingDependencyError extends LsmscopeError {
  constructor(message: string) {
    super(message, { exitCode: 3 });
    this.name = "MissingDependencyError";
  }
}

export function isUserError(err: unknown): err is LsmscopeError {
  return (
    err instanceof LsmscopeError ||
    (typeof err === "object" && err !== null && (err as { [USER_ERROR]?: unknown })[USER_ERROR] === true)
  );
}

/** Why an OS call failed, in words, for the errno codes a user can cause with a path. */
const OS_REASONS: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "is a directory",
  ENOTDIR: "not a directory (a path component is a file)",
  ELOOP: "too many levels of symbolic links (a symlink loop?)",
  ENAMETOOLONG: "file name too long",
  EMFILE: "too many open files (raise ulimit -n)",
  ENFILE: "too many open files in the system",
  EROFS: "read-only file system",
  ENOSPC: "no space left on device",
  EEXIST: "already exists",
  EIO: "input/output error",
  EBUSY: "device or resource busy",
  EINVAL: "invalid argument",
};

/** The errno code of a Node system error (ENOENT, EACCES, ...), or undefined. */
export function osErrorCode(err: unknown): string | undefined {
  if (err && typeof err === "object" && "code" in err) {
    const code = (err as { code: unknown }).code;
    if (typeof code === "string" && /^E[A-Z0-9]+$/.test(code)) return code;
  }
  return undefined;
}

/** One phrase for an OS error: "permission denied (EACCES)"; anything else: its message. */
export function describeOsError(err: unknown): string {
  const code = osErrorCode(err);
  if (code) return `${OS_REASONS[code] ?? (err as Error).message.split(",")[0]!} (${code})`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Node's fs errors (ENOENT, EACCES, ELOOP, ...) are user errors too: one line naming the path and the
 * cause. `path` names the file when the error does not (or names it differently than the user did).
 */
export function fromFsError(err: unknown, path?: string): LsmscopeError | undefined {
  const code = osErrorCode(err);
  if (!code) return undefined;
  const e = err as NodeJS.ErrnoException;
  return new LsmscopeError(describeOsError(err), { file: path ?? e.path, cause: err });
}
