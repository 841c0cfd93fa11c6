/** `gatehouse users list|get|create|delete|export` (import is in import.ts). */
import { createWriteStream } from "node:fs";
import type { Writable } from "node:stream";
import type { Command } from "commander";
import { contextOf, type Owner, ownerOf, resolveProject } from "../context.ts";
import { CliError, EXIT } from "../errors.ts";
import { EXPORT_CSV_COLUMNS, toCsvRow } from "../import/csv.ts";
import { confirm, table } from "../output.ts";
import { registerImportCommand } from "./import.ts";

type User = Record<string, unknown> & {
  id: string;
  primary_email: string | null;
  display_name: string | null;
};
type Page<T> = { items: T[]; pagination: { next_cursor: string | null } };

const userRow = (user: User) => ({
  id: user.id,
  email: user.primary_email,
  name: user.display_name,
  verified: user.primary_email_verified ? "yes" : "no",
  signed_up: new Date(user.signed_up_at_millis as number).toISOString().slice(0, 10),
});

async function ownerAndProject(command: Command): Promise<{ owner: Owner; projectId: string }> {
  const owner = await ownerOf(contextOf(command));
  return { owner, projectId: await resolveProject(owner) };
}

/** Writes to a stream, waiting when it is full, so an export holds one page in memory at most. */
async function writeChunk(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) await new Promise((resolve) => stream.once("drain", resolve));
}

export function registerUserCommands(program: Command): void {
  const users = program.command("users").description("the users of a project (--project <id>)");
  users
    .command("list")
    .description("list users, newest last")
    .option("--query <text>", "search email, name and id")
    .option("--limit <n>", "at most this many (up to 200)", "50")
    .action(async (options, command: Command) => {
      const ctx = contextOf(command);
      const { owner, projectId } = await ownerAndProject(command);
      const page = await owner.asAdmin<Page<User>>(projectId, "/users", {
        query: { limit: options.limit, query: options.query },
      });
      ctx.out.result(page.items, () =>
        table(page.items.map(userRow), ["id", "email", "name", "verified", "signed_up"]),
      );
    });
  users
    .command("get <id>")
    .description("show one user")
    .action(async (id: string, _options, command: Command) => {
      const ctx = contextOf(command);
      const { owner, projectId } = await ownerAndProject(command);
      const user = await owner.asAdmin<User>(projectId, `/users/${encodeURIComponent(id)}`);
      ctx.out.result(user, () => JSON.stringify(user, null, 2));
    });
  users
    .command("create")
    .description("create a user")
    .option("--email <email>", "primary email")
    .option("--verified", "mark the email as verified")
    .option("--display-name <name>", "display name")
    .addHelpText(
      "after",
      "\nA password, if any, is read from the GATEHOUSE_USER_PASSWORD environment variable.",
    )
    .action(async (options, command: Command) => {
      const ctx = contextOf(command);
      const { owner, projectId } = await ownerAndProject(command);
      const password = process.env.GATEHOUSE_USER_PASSWORD;
      const user = await owner.asAdmin<User>(projectId, "/users", {
        method: "POST",
        body: {
          ...(options.email ? { primary_email: options.email, primary_email_auth_enabled: true } : {}),
          ...(options.verified ? { primary_email_verified: true } : {}),
          ...(options.displayName ? { display_name: options.displayName } : {}),
          ...(password ? { password } : {}),
        },
      });
      ctx.out.result(user, () => `Created user ${user.primary_email ?? ""} (${user.id}).`);
    });
  users
    .command("delete <id>")
    .description("delete a user (irreversible)")
    .action(async (id: string, _options, command: Command) => {
      const ctx = contextOf(command);
      const { owner, projectId } = await ownerAndProject(command);
      if (!(await confirm(ctx.out, `Delete user ${id}? This cannot be undone.`, ctx.options.yes === true))) {
        throw new CliError("Not deleted.", EXIT.cancelled);
      }
      await owner.asAdmin(projectId, `/users/${encodeURIComponent(id)}`, { method: "DELETE" });
      ctx.out.result({ id, deleted: true }, () => `Deleted user ${id}.`);
    });
  users
    .command("export")
    .description("write every user, with password hashes, as JSON (an array) or CSV; page by page")
    .option("--format <format>", "json or csv", "json")
    .option("-o, --output <file>", "write here instead of stdout")
    .action(async (options, command: Command) => {
      const ctx = contextOf(command);
      if (options.format !== "json" && options.format !== "csv") {
        throw new CliError(`--format must be json or csv, not ${options.format}.`, EXIT.usage);
      }
      const { owner, projectId } = await ownerAndProject(command);
      const stream: Writable = options.output
        ? createWriteStream(options.output, { mode: 0o600 })
        : process.stdout;
      const csv = options.format === "csv";
      await writeChunk(stream, csv ? `${EXPORT_CSV_COLUMNS.join(",")}\n` : "[");
      let cursor: string | undefined;
      let count = 0;
      do {
        const page = await owner.asAdmin<Page<Record<string, unknown>>>(projectId, "/users/export", {
          query: { limit: 200, include_anonymous: true, ...(cursor ? { cursor } : {}) },
        });
        for (const user of page.items) {
          const text = csv
            ? toCsvRow(EXPORT_CSV_COLUMNS.map((column) => user[column]))
            : JSON.stringify(user);
          await writeChunk(stream, csv ? `${text}\n` : `${count === 0 ? "\n" : ",\n"}${text}`);
          count++;
        }
        cursor = page.pagination.next_cursor ?? undefined;
      } while (cursor);
      if (!csv) await writeChunk(stream, count === 0 ? "]\n" : "\n]\n");
      if (stream !== process.stdout) await new Promise<void>((resolve) => stream.end(resolve));
      ctx.out.note(`Exported ${count} users${options.output ? ` to ${options.output}` : ""}.`);
    });
  registerImportCommand(users);
}
