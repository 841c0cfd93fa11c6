/**
 * Exit codes scripts can rely on (also in the README):
 * 0 success, 1 the server refused or something failed, 2 bad usage (unknown flag, missing argument, a prompt
 * needed without a terminal), 3 not logged in or the login failed, 4 the server cannot be reached, 5 bad input
 * file (malformed rows, secrets in a config file), 6 cancelled by the user.
 */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  auth: 3,
  unreachable: 4,
  badInput: 5,
  cancelled: 6,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error with the words to show and the exit code to leave with; anything else is a bug (exit 1 with a stack). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.failed,
  ) {
    super(message);
    this.name = "CliError";
  }
}
