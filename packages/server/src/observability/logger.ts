import { formatWithOptions } from "node:util";
import pino, { type DestinationStream, type Logger } from "pino";
import type { ObservabilitySettings } from "./settings.ts";

export type { Logger } from "pino";

/**
 * Defence in depth: no log call passes headers, bodies or credentials, but a field of these names, at the top or one
 * level down (e.g. `{ body: { password } }`), is censored should one ever be logged by mistake.
 */
const SECRET_FIELDS = [
  "password",
  "new_password",
  "old_password",
  "token",
  "access_token",
  "refresh_token",
  "id_token",
  "code",
  "secret",
  "client_secret",
  "api_key",
  "key",
  "authorization",
  "cookie",
  "set-cookie",
  "publishable_client_key",
  "secret_server_key",
  "super_secret_admin_key",
  "x-stack-access-token",
  "x-stack-refresh-token",
  "x-stack-secret-server-key",
  "x-stack-super-secret-admin-key",
  "x-stack-publishable-client-key",
  "x-stack-admin-access-token",
];
export const REDACTED_PATHS = [
  ...SECRET_FIELDS.map((field) => (/^[a-z_]+$/.test(field) ? field : `["${field}"]`)),
  ...SECRET_FIELDS.map((field) => (/^[a-z_]+$/.test(field) ? `*.${field}` : `*["${field}"]`)),
  "headers",
  "*.headers",
  "body",
  "*.body",
  // A PostgreSQL error's detail repeats the offending row's values ("Key (x)=(…) already exists").
  "err.detail",
];

/**
 * Drizzle wraps a failed statement's error with the statement and its parameters in the message; parameters can be
 * anything a request carried, so they are cut from the message and the stack.
 */
function serializeError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  if (serialized && typeof serialized === "object") {
    delete serialized.params;
    for (const field of ["message", "stack"] as const) {
      if (typeof serialized[field] === "string") {
        serialized[field] = (serialized[field] as string).replace(
          /\nparams: [^\n]*/g,
          "\nparams: [redacted]",
        );
      }
    }
  }
  return serialized;
}

/**
 * The process's logger: JSON lines (production, or GATEHOUSE_LOG_FORMAT=json) or readable lines (development).
 * `destination` replaces standard output, for tests that read what was logged.
 */
export function createLogger(
  settings: Pick<ObservabilitySettings, "logFormat" | "logLevel">,
  destination?: DestinationStream,
): Logger {
  return pino(
    {
      level: settings.logLevel,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      serializers: { err: serializeError },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ??
      // Synchronous, though a write per line costs ~25 µs of a session read: a request's access line is then out
      // before its answer, so whoever reads the log after an answer finds it, and a kill -9 loses no line.
      (settings.logFormat === "json" ? pino.destination({ dest: 1, sync: true }) : prettyConsole()),
  );
}

const FIXED_FIELDS = new Set(["level", "time", "pid", "msg", "err"]);

/**
 * Readable lines for a terminal, written through `console` (errors and warnings to stderr) so development output
 * looks as before and tests can watch it.
 */
function prettyConsole(): DestinationStream {
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        console.log(line.trimEnd());
        return;
      }
      const time = typeof entry.time === "string" ? entry.time.slice(11, 23) : "";
      const level = String(entry.level ?? "info");
      const fields = Object.entries(entry)
        .filter(([name]) => !FIXED_FIELDS.has(name))
        .map(([name, value]) => `${name}=${typeof value === "string" ? value : JSON.stringify(value)}`);
      const err = entry.err as { stack?: string; message?: string } | undefined;
      const text = [`${time} ${level.toUpperCase().padEnd(5)} ${entry.msg ?? ""}`, ...fields].join(" ");
      const full = err ? `${text}\n${err.stack ?? err.message ?? ""}` : text;
      if (level === "error" || level === "fatal" || level === "warn") console.error(full);
      else console.log(full);
    },
  };
}

/**
 * With JSON logs every line of standard output and error must be a JSON object, including what code of ours or a
 * library writes with `console` (a worker's failure, a library's warning). Those calls go through the logger
 * instead: an Error among the arguments becomes its serialized `err` (with Drizzle's parameters cut), the rest the
 * message.
 */
export function routeConsoleToLogger(logger: Logger): void {
  const through =
    (level: "info" | "warn" | "error") =>
    (...args: unknown[]): void => {
      const error = args.find((arg) => arg instanceof Error);
      const message = formatWithOptions({ colors: false }, ...args.filter((arg) => arg !== error));
      if (error) logger[level]({ err: error }, message);
      else logger[level](message);
    };
  console.log = through("info");
  console.info = through("info");
  console.warn = through("warn");
  console.error = through("error");
}
