/** `gatehouse config pull|diff|push`: the project's branch-level config override, kept in the repository. */
import { existsSync, writeFileSync } from "node:fs";
import type { Command } from "commander";
import {
  type Change,
  type ConfigObject,
  diffConfigs,
  findConfigFile,
  isSecretKey,
  readConfigFile,
  renderConfigFile,
  resolveSecrets,
  withSecretsAsEnv,
} from "../config-file.ts";
import { type Context, contextOf, type Owner, ownerOf, resolveProject } from "../context.ts";
import { CliError, EXIT } from "../errors.ts";
import { confirm, type Output } from "../output.ts";

type Level = "branch" | "environment";

function levelOf(value: string): Level {
  if (value !== "branch" && value !== "environment") {
    throw new CliError(`--level must be branch or environment, not ${value}.`, EXIT.usage);
  }
  return value;
}

async function currentOverride(owner: Owner, projectId: string, level: Level): Promise<ConfigObject> {
  const { config_string } = await owner.asAdmin<{ config_string: string }>(
    projectId,
    `/internal/config/override/${level}`,
  );
  return JSON.parse(config_string) as ConfigObject;
}

const show = (path: string, value: unknown) => (isSecretKey(path) ? "(secret)" : JSON.stringify(value));

function renderChanges(out: Output, changes: Change[]): string {
  if (changes.length === 0) return "No changes: the project already has this config.";
  const { green, red, yellow } = out.color;
  return changes
    .map((change) =>
      change.kind === "added"
        ? green(`+ ${change.path}: ${show(change.path, change.to)}`)
        : change.kind === "removed"
          ? red(`- ${change.path}: ${show(change.path, change.from)}`)
          : yellow(`~ ${change.path}: ${show(change.path, change.from)} -> ${show(change.path, change.to)}`),
    )
    .join("\n");
}

const masked = (changes: Change[]) =>
  changes.map((change) =>
    isSecretKey(change.path)
      ? {
          ...change,
          ...(change.from !== undefined ? { from: "(secret)" } : {}),
          ...(change.to !== undefined ? { to: "(secret)" } : {}),
        }
      : change,
  );

type Options = { file?: string; level: string; force?: boolean };

async function setUp(command: Command, options: Options) {
  const ctx: Context = contextOf(command);
  const owner = await ownerOf(ctx);
  return { ctx, owner, projectId: await resolveProject(owner), level: levelOf(options.level) };
}

async function planned(owner: Owner, projectId: string, level: Level, file: string) {
  const wanted = resolveSecrets(await readConfigFile(file), process.env);
  const current = await currentOverride(owner, projectId, level);
  return { wanted, changes: diffConfigs(current, wanted) };
}

export function registerConfigCommands(program: Command): void {
  const config = program
    .command("config")
    .description("keep the project's config in a file: pull it, see the diff, push it")
    .addHelpText(
      "after",
      "\nThe file is gatehouse.config.ts or gatehouse.config.json (--file). Secrets are written as\n" +
        '{ "$env": "NAME" } and read from the environment by push; a secret in the file is refused.',
    );
  const fileOption = ["--file <path>", "the config file (default gatehouse.config.ts, else .json)"] as const;
  // The dashboard writes the environment level, and only it may hold domains, the email server and OAuth
  // credentials (the branch level refuses them), so that is what a config file usually means.
  const levelOption = [
    "--level <level>",
    "the override level: environment or branch",
    "environment",
  ] as const;

  config
    .command("pull")
    .description("write the project's config override to the file")
    .option(...fileOption)
    .option(...levelOption)
    .option("--force", "overwrite the file without asking")
    .action(async (options: Options, command: Command) => {
      const { ctx, owner, projectId, level } = await setUp(command, options);
      const file = findConfigFile(options.file);
      const { config: pulled, names } = withSecretsAsEnv(await currentOverride(owner, projectId, level));
      if (existsSync(file) && !options.force) {
        const ok = await confirm(ctx.out, `Overwrite ${file}?`, ctx.options.yes === true);
        if (!ok) throw new CliError(`${file} left as it was.`, EXIT.cancelled);
      }
      writeFileSync(file, renderConfigFile(file, pulled));
      ctx.out.result({ file, project_id: projectId, level, secrets_from_env: names }, () =>
        [
          `Wrote ${file} (${level} config of ${projectId}).`,
          ...(names.length ? [`Secrets were replaced by environment variables: ${names.join(", ")}.`] : []),
        ].join("\n"),
      );
    });

  config
    .command("diff")
    .description("show what push would change (exit code 0 either way)")
    .option(...fileOption)
    .option(...levelOption)
    .action(async (options: Options, command: Command) => {
      const { ctx, owner, projectId, level } = await setUp(command, options);
      const { changes } = await planned(owner, projectId, level, findConfigFile(options.file));
      ctx.out.result({ changes: masked(changes) }, () => renderChanges(ctx.out, changes));
    });

  config
    .command("push")
    .description("replace the project's config override with the file (asks first; --yes for CI)")
    .option(...fileOption)
    .option(...levelOption)
    .action(async (options: Options, command: Command) => {
      const { ctx, owner, projectId, level } = await setUp(command, options);
      const file = findConfigFile(options.file);
      const { wanted, changes } = await planned(owner, projectId, level, file);
      if (changes.length === 0) {
        ctx.out.result({ changes: [], pushed: false }, () => renderChanges(ctx.out, changes));
        return;
      }
      if (!ctx.out.json) ctx.out.note(renderChanges(ctx.out, changes));
      if (
        !(await confirm(
          ctx.out,
          `Apply ${changes.length} change(s) to ${projectId}?`,
          ctx.options.yes === true,
        ))
      ) {
        throw new CliError("Nothing was pushed.", EXIT.cancelled);
      }
      await owner.asAdmin(projectId, `/internal/config/override/${level}`, {
        method: "PUT",
        body: {
          config_string: JSON.stringify(wanted),
          ...(level === "branch" ? { source: { type: "pushed-from-unknown" } } : {}),
        },
      });
      ctx.out.result({ changes: masked(changes), pushed: true }, () =>
        ctx.out.color.green(`Pushed ${changes.length} change(s) from ${file}.`),
      );
    });
}
