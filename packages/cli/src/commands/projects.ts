/** `gatehouse projects`, `keys` and `emails send-test`. */
import type { Command } from "commander";
import { contextOf, type Owner, ownerOf, type ProjectSummary, resolveProject } from "../context.ts";
import { CliError, EXIT } from "../errors.ts";
import { confirm, table } from "../output.ts";

const when = (millis: number | null | undefined) =>
  millis ? new Date(millis).toISOString().slice(0, 10) : null;

/** A team of the owner to own a new project: the selected one, the first one, or a new personal team. */
async function ownerTeamId(owner: Owner): Promise<string> {
  const me = await owner.asUser<{ id: string; selected_team_id: string | null }>("/users/me");
  if (me.selected_team_id) return me.selected_team_id;
  const teams = await owner.asUser<{ items: { id: string }[] }>("/teams", { query: { user_id: "me" } });
  if (teams.items[0]) return teams.items[0].id;
  const team = await owner.asUser<{ id: string }>("/teams", {
    method: "POST",
    body: { display_name: "Personal team", creator_user_id: "me" },
  });
  return team.id;
}

export async function createProject(owner: Owner, name: string): Promise<ProjectSummary> {
  return owner.asUser<ProjectSummary>("/internal/projects", {
    method: "POST",
    body: { display_name: name, owner_team_id: await ownerTeamId(owner) },
  });
}

export type CreatedKeys = {
  id: string;
  publishable_client_key?: string;
  secret_server_key?: string;
  super_secret_admin_key?: string;
};

export async function createKeys(
  owner: Owner,
  projectId: string,
  options: { description: string; days: number; admin: boolean },
): Promise<CreatedKeys> {
  return owner.asAdmin<CreatedKeys>(projectId, "/internal/api-keys", {
    method: "POST",
    body: {
      description: options.description,
      expires_at_millis: Date.now() + options.days * 24 * 3600 * 1000,
      has_publishable_client_key: true,
      has_secret_server_key: true,
      has_super_secret_admin_key: options.admin,
    },
  });
}

function positiveDays(value: string): number {
  const days = Number(value);
  if (!Number.isInteger(days) || days < 1)
    throw new CliError("--expires-in takes a whole number of days.", EXIT.usage);
  return days;
}

export function registerProjectCommands(program: Command): void {
  const projects = program.command("projects").description("the projects you manage");
  projects
    .command("list")
    .description("list your projects")
    .action(async (_options, command: Command) => {
      const ctx = contextOf(command);
      const { items } = await (await ownerOf(ctx, { requireLogin: true })).asUser<{
        items: ProjectSummary[];
      }>("/internal/projects");
      ctx.out.result(items, () =>
        table(
          items.map((p) => ({ id: p.id, name: p.display_name, created: when(p.created_at_millis) })),
          ["id", "name", "created"],
        ),
      );
    });
  projects
    .command("create <name>")
    .description("create a project owned by your team")
    .action(async (name: string, _options, command: Command) => {
      const ctx = contextOf(command);
      const project = await createProject(await ownerOf(ctx, { requireLogin: true }), name);
      ctx.out.result(project, () => `Created project ${project.display_name} (${project.id}).`);
    });

  const keys = program.command("keys").description("API key sets of a project (--project <id>)");
  keys
    .command("create")
    .description("create a key set (publishable client and secret server keys); the keys are shown once")
    .option("--description <text>", "what the keys are for", "Created with the gatehouse CLI")
    .option("--expires-in <days>", "lifetime in days", "365")
    .option("--admin", "also make a super secret admin key")
    .action(async (options, command: Command) => {
      const ctx = contextOf(command);
      const owner = await ownerOf(ctx);
      const projectId = await resolveProject(owner);
      const created = await createKeys(owner, projectId, {
        description: options.description,
        days: positiveDays(options.expiresIn),
        admin: options.admin === true,
      });
      ctx.out.result(created, () =>
        [
          `Created key set ${created.id}. Copy the keys now; they are not shown again.`,
          `  publishable client key   ${created.publishable_client_key ?? "-"}`,
          `  secret server key        ${created.secret_server_key ?? "-"}`,
          ...(created.super_secret_admin_key
            ? [`  super secret admin key   ${created.super_secret_admin_key}`]
            : []),
        ].join("\n"),
      );
    });
  keys
    .command("list")
    .description("list key sets (last four characters only)")
    .action(async (_options, command: Command) => {
      const ctx = contextOf(command);
      const owner = await ownerOf(ctx);
      const { items } = await owner.asAdmin<{ items: Record<string, unknown>[] }>(
        await resolveProject(owner),
        "/internal/api-keys",
      );
      ctx.out.result(items, () =>
        table(
          items.map((key) => ({
            id: key.id,
            description: key.description,
            expires: when(key.expires_at_millis as number),
            revoked: key.manually_revoked_at_millis ? "yes" : "no",
          })),
          ["id", "description", "expires", "revoked"],
        ),
      );
    });
  keys
    .command("revoke <id>")
    .description("revoke a key set (irreversible)")
    .action(async (id: string, _options, command: Command) => {
      const ctx = contextOf(command);
      const owner = await ownerOf(ctx);
      const projectId = await resolveProject(owner);
      if (
        !(await confirm(
          ctx.out,
          `Revoke key set ${id}? Apps using it stop working.`,
          ctx.options.yes === true,
        ))
      ) {
        throw new CliError("Not revoked.", EXIT.cancelled);
      }
      const revoked = await owner.asAdmin(projectId, `/internal/api-keys/${encodeURIComponent(id)}`, {
        method: "PATCH",
        body: { revoked: true },
      });
      ctx.out.result(revoked, () => `Revoked key set ${id}.`);
    });

  const emails = program.command("emails").description("email of a project");
  emails
    .command("send-test")
    .description("send a test email through an SMTP server, to check its settings")
    .requiredOption("--to <email>", "recipient")
    .requiredOption("--host <host>", "SMTP host")
    .option("--port <port>", "SMTP port", "587")
    .option("--username <name>", "SMTP user name")
    .option("--sender <email>", "sender address", "noreply@example.com")
    .option("--sender-name <name>", "sender name", "Gatehouse")
    .addHelpText(
      "after",
      "\nThe SMTP password is read from the GATEHOUSE_SMTP_PASSWORD environment variable.",
    )
    .action(async (options, command: Command) => {
      const ctx = contextOf(command);
      const owner = await ownerOf(ctx);
      const result = await owner.asAdmin<{ success: boolean; error_message?: string }>(
        await resolveProject(owner),
        "/internal/send-test-email",
        {
          method: "POST",
          body: {
            recipient_email: options.to,
            email_config: {
              host: options.host,
              port: Number(options.port),
              ...(options.username ? { username: options.username } : {}),
              ...(process.env.GATEHOUSE_SMTP_PASSWORD
                ? { password: process.env.GATEHOUSE_SMTP_PASSWORD }
                : {}),
              sender_email: options.sender,
              sender_name: options.senderName,
            },
          },
        },
      );
      if (!result.success) {
        if (ctx.out.json) ctx.out.result(result, () => "");
        throw new CliError(`The test email was not sent: ${result.error_message ?? "unknown error"}`);
      }
      ctx.out.result(result, () => `Sent a test email to ${options.to}.`);
    });
}
