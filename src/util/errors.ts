/**
 * Errors that describe bad input or a bad environment (a corrupt file, a missing store, a held LOCK,
 * a missing engine). The CLI prints them as one line and exits non-zero; anything else is a bug and
 * keeps its stack trace.
 */
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
  return err instanceof LsmscopeError;
}

/** Node's fs errors (ENOENT, EACCES, ...) are user errors too: turn them into one line naming the path. */
export function fromFsError(err: unknown): LsmscopeError | undefined {
  if (
    err &&
    typeof err === "object" &&
    "code" in err &&
    typeof (err as { code: unknown }).code === "string"
  ) {
    const e = err as NodeJS.ErrnoException;
    const reason: Record<string, string> = {
      ENOENT: "no such file or directory",
      EACCES: "permission denied",
      EISDIR: "is a directory",
      ENOTDIR: "not a directory",
      EMFILE: "too many open files",
    };
    if (e.code && reason[e.code]) return new LsmscopeError(reason[e.code]!, { file: e.path, cause: err });
  }
  return undefined;
}
