/** `gatehouse init`: a project and a key set for the app in this folder, in its `.env.local`. */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { BUILD_SDK_COMMAND, installAdvice, OFFICIAL_SDK_VERSION } from "@gatehouse/shared";
import type { Command } from "commander";
import { contextOf, type Owner, ownerOf, type ProjectSummary } from "../context.ts";
import { CliError, EXIT } from "../errors.ts";
import { ask, choose, confirm } from "../output.ts";
import { createKeys, createProject } from "./projects.ts";

export type Framework = "next" | "vite" | "node";

export function detectFramework(dir: string): Framework {
  const path = join(dir, "package.json");
  if (!existsSync(path)) return "node";
  const pkg = JSON.parse(readFileSync(path, "utf8")) as Record<string, Record<string, string> | undefined>;
  const deps = { ...pkg.dependencies, ...pkg.devDependencies };
  if ("next" in deps) return "next";
  if ("vite" in deps) return "vite";
  return "node";
}

/** The variables @gatehouse/js (and the official SDK) read, as each framework exposes them. */
export function envLines(
  framework: Framework,
  values: { projectId: string; publishable: string; secret: string; apiUrl: string },
) {
  const pub = framework === "next" ? "NEXT_PUBLIC_STACK_" : framework === "vite" ? "VITE_STACK_" : "STACK_";
  return {
    [`${pub}PROJECT_ID`]: values.projectId,
    [`${pub}PUBLISHABLE_CLIENT_KEY`]: values.publishable,
    [`${pub}API_URL`]: values.apiUrl,
    STACK_SECRET_SERVER_KEY: values.secret,
  };
}

const FRAMEWORK_NAMES: Record<Framework, string> = { next: "Next.js", vite: "React (Vite)", node: "Node" };

/**
 * What to install next, from @gatehouse/shared's install lines (the dashboard's keys page shows the same, and
 * e2e/packages/install-lines.test.ts runs them): the official SDK pointed at this server, then our own packages.
 */
export function nextSteps(framework: Framework, apiUrl: string): string[] {
  const advice = installAdvice(framework, apiUrl);
  return [
    `Next (${FRAMEWORK_NAMES[framework]}): ${advice.official}`,
    `  (the official SDK; ${OFFICIAL_SDK_VERSION} is tested against Gatehouse), then ${advice.usage}`,
    `Or Gatehouse's own packages, once \`${BUILD_SDK_COMMAND}\` has run in the Gatehouse folder:`,
    `  ${advice.gatehouse}`,
  ];
}

/** Our variables replaced or added, every other line kept as it was. */
export function mergeEnvFile(existing: string, values: Record<string, string>): string {
  const left = new Map(Object.entries(values));
  const lines = existing === "" ? [] : existing.replace(/\n$/, "").split("\n");
  const merged = lines.map((line) => {
    const name = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    if (name && left.has(name)) {
      const value = left.get(name)!;
      left.delete(name);
      return `${name}=${value}`;
    }
    return line;
  });
  for (const [name, value] of left) merged.push(`${name}=${value}`);
  return `${merged.join("\n")}\n`;
}

async function pickProject(owner: Owner, options: { create?: string }): Promise<ProjectSummary> {
  const { out } = owner.ctx;
  if (options.create) return createProject(owner, options.create);
  const { items } = await owner.asUser<{ items: ProjectSummary[] }>("/internal/projects");
  const given = owner.ctx.options.project;
  if (given) {
    const found = items.find((project) => project.id === given);
    if (!found) throw new CliError(`You manage no project ${given} (see \`gatehouse projects list\`).`);
    return found;
  }
  const choice = await choose(
    out,
    "Which project should this app use?",
    [
      ...items.map((project) => ({ value: project.id, label: project.display_name, hint: project.id })),
      { value: "+new", label: "Create a new project" },
    ],
    "--project <id> or --create <name>",
  );
  if (choice !== "+new") return items.find((project) => project.id === choice)!;
  return createProject(owner, await ask(out, "Project name", "--create <name>", "My app"));
}

export function registerInitCommand(program: Command): void {
  program
    .command("init")
    .description("set this app up: pick or create a project, create keys, write .env.local")
    .option("--create <name>", "create a new project with this name")
    .option("--dir <path>", "the app's folder", ".")
    .action(async (options: { create?: string; dir: string }, command: Command) => {
      const ctx = contextOf(command);
      const owner = await ownerOf(ctx, { requireLogin: true });
      const dir = resolve(options.dir);
      const envPath = join(dir, ".env.local");
      const existing = existsSync(envPath) ? readFileSync(envPath, "utf8") : null;
      // Asked before anything is created, so that a "no" leaves no stray project or keys behind.
      if (
        existing !== null &&
        !(await confirm(ctx.out, `${envPath} exists. Update it?`, ctx.options.yes === true))
      ) {
        throw new CliError(`${envPath} left as it was.`, EXIT.cancelled);
      }
      const framework = detectFramework(dir);
      const project = await pickProject(owner, options);
      const keys = await createKeys(owner, project.id, {
        description: `Created by gatehouse init in ${dir}`,
        days: 365,
        admin: false,
      });
      const values = envLines(framework, {
        projectId: project.id,
        publishable: keys.publishable_client_key!,
        secret: keys.secret_server_key!,
        apiUrl: ctx.apiUrl,
      });
      writeFileSync(envPath, mergeEnvFile(existing ?? "", values), { mode: 0o600 });
      ctx.out.result(
        { project_id: project.id, framework, env_file: envPath, variables: Object.keys(values) },
        () =>
          [
            ctx.out.color.green(`Wrote ${envPath} for ${project.display_name} (${project.id}).`),
            "Keep it out of version control (it holds the secret server key).",
            "",
            ...nextSteps(framework, ctx.apiUrl),
          ].join("\n"),
      );
    });
}
