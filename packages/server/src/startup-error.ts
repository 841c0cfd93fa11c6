/**
 * A reason the server cannot start that the operator fixes by doing what the message says (a variable to set, a
 * process to stop). main.ts prints its message alone: a stack trace would bury the one line that matters.
 */
export class StartupError extends Error {}
