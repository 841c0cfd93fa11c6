import * as clack from "@clack/prompts";
import pc from "picocolors";
import { CliError, EXIT } from "./errors.ts";

export type Colors = ReturnType<typeof pc.createColors>;

/** How the CLI talks: plain or coloured text for people, JSON on stdout for scripts, prompts only on a terminal. */
export type Output = {
  json: boolean;
  color: Colors;
  /** Both ends are a terminal and no --json: prompts may be shown. */
  interactive: boolean;
  /** Human text on stdout (nothing in --json mode). */
  info(text: string): void;
  /** Notes and progress on stderr, so that stdout stays the result. */
  note(text: string): void;
  /** The result: JSON in --json mode, else the human rendering. */
  result(data: unknown, human: () => string): void;
};

export function createOutput(options: { json?: boolean; color?: boolean }): Output {
  const json = options.json === true;
  const colorOn =
    options.color !== false &&
    !("NO_COLOR" in process.env) &&
    (Boolean(process.env.FORCE_COLOR) || process.stdout.isTTY === true);
  return {
    json,
    color: pc.createColors(colorOn),
    interactive: !json && process.stdin.isTTY === true && process.stdout.isTTY === true,
    info(text) {
      if (!json) process.stdout.write(`${text}\n`);
    },
    note(text) {
      process.stderr.write(`${text}\n`);
    },
    result(data, human) {
      process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${human()}\n`);
    },
  };
}

/** A fixed-width text table; empty cells are shown as "-". */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return "(none)";
  const cell = (value: unknown) =>
    value === null || value === undefined || value === "" ? "-" : String(value);
  const widths = columns.map((column) =>
    Math.max(column.length, ...rows.map((row) => cell(row[column]).length)),
  );
  const line = (values: string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [
    line(columns.map((c) => c.toUpperCase())),
    ...rows.map((row) => line(columns.map((c) => cell(row[c])))),
  ].join("\n");
}

function needTerminal(what: string, flag: string): never {
  throw new CliError(`${what} needs an answer and there is no terminal to ask on: pass ${flag}.`, EXIT.usage);
}

function unlessCancelled<T>(value: T | symbol): Exclude<T, symbol> {
  if (clack.isCancel(value) || typeof value === "symbol") throw new CliError("Cancelled.", EXIT.cancelled);
  return value as Exclude<T, symbol>;
}

/** Yes/no on a terminal; `assumeYes` (from --yes) answers yes; without a terminal and --yes it is a usage error. */
export async function confirm(out: Output, message: string, assumeYes: boolean): Promise<boolean> {
  if (assumeYes) return true;
  if (!out.interactive) needTerminal(message, "--yes");
  return unlessCancelled(await clack.confirm({ message }));
}

export async function choose<T extends string>(
  out: Output,
  message: string,
  options: { value: T; label: string; hint?: string }[],
  flag: string,
): Promise<T> {
  if (!out.interactive) needTerminal(message, flag);
  const picked = await clack.select<T>({
    message,
    options: options as Parameters<typeof clack.select<T>>[0]["options"],
  });
  return unlessCancelled(picked) as T;
}

export async function ask(
  out: Output,
  message: string,
  flag: string,
  initialValue?: string,
): Promise<string> {
  if (!out.interactive) needTerminal(message, flag);
  return unlessCancelled(
    await clack.text({
      message,
      ...(initialValue ? { initialValue } : {}),
      validate: (value) => (value?.trim() ? undefined : "Required"),
    }),
  ).trim();
}

export type Progress = { advance(by: number): void; stop(message: string): void };

/** A progress bar on stderr when it is a terminal (clack's), otherwise a line per tenth of the work. */
export function progress(out: Output, total: number, label: string): Progress {
  let done = 0;
  if (process.stderr.isTTY && !out.json) {
    const bar = clack.progress({ max: Math.max(total, 1), output: process.stderr });
    bar.start(label);
    return {
      advance(by) {
        done += by;
        bar.advance(by, `${label} ${done.toLocaleString("en")} / ${total.toLocaleString("en")}`);
      },
      stop(message) {
        bar.stop(message);
      },
    };
  }
  let reported = 0;
  return {
    advance(by) {
      done += by;
      const tenth = Math.floor((done / Math.max(total, 1)) * 10);
      if (tenth > reported && tenth < 10) {
        reported = tenth;
        out.note(`${label} ${done} / ${total}`);
      }
    },
    stop(message) {
      out.note(message);
    },
  };
}
