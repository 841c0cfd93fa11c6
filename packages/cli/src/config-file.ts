/**
 * The project config kept in the repository: `gatehouse.config.json` (the override as JSON) or a typed
 * `gatehouse.config.ts` (`export default {...} satisfies GatehouseConfig`). Secrets never sit in the file: a
 * secret key holds `{ "$env": "NAME" }`, read from the environment when pushing.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { CliError, EXIT } from "./errors.ts";

export type ConfigObject = { [key: string]: unknown };
export const DEFAULT_CONFIG_FILES = ["gatehouse.config.ts", "gatehouse.config.json"];

/** Keys whose values are secrets (OAuth client secrets, the SMTP password, API keys). */
export const isSecretKey = (path: string) =>
  /(secret|password|apikey|privatekey|token)$/i.test(path.split(".").pop()!);

const isPlainObject = (value: unknown): value is ConfigObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isEnvRef = (value: unknown): value is { $env: string } =>
  isPlainObject(value) && Object.keys(value).length === 1 && typeof value.$env === "string";

/** Dot paths to leaves (arrays and environment references are leaves). */
export function flatten(config: ConfigObject, prefix = ""): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [key, value] of Object.entries(config)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isPlainObject(value) && !isEnvRef(value) && Object.keys(value).length > 0) {
      for (const [inner, leaf] of flatten(value, path)) out.set(inner, leaf);
    } else {
      out.set(path, value);
    }
  }
  return out;
}

export function envNameFor(path: string): string {
  return `GATEHOUSE_${path
    .replace(/([a-z])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .toUpperCase()}`;
}

/** The pulled override with every secret replaced by an environment reference; the names it chose. */
export function withSecretsAsEnv(
  config: ConfigObject,
  prefix = "",
): { config: ConfigObject; names: string[] } {
  const names: string[] = [];
  const result: ConfigObject = {};
  for (const [key, value] of Object.entries(config)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isPlainObject(value)) {
      const inner = withSecretsAsEnv(value, path);
      result[key] = inner.config;
      names.push(...inner.names);
    } else if (isSecretKey(path) && typeof value === "string" && value !== "") {
      const name = envNameFor(path);
      result[key] = { $env: name };
      names.push(name);
    } else {
      result[key] = value;
    }
  }
  return { config: result, names };
}

/** The file's override with environment references read; a secret written into the file is refused. */
export function resolveSecrets(config: ConfigObject, env: NodeJS.ProcessEnv, prefix = ""): ConfigObject {
  const result: ConfigObject = {};
  for (const [key, value] of Object.entries(config)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isEnvRef(value)) {
      const resolved = env[value.$env];
      if (resolved === undefined) {
        throw new CliError(`${path} comes from $${value.$env}, which is not set.`, EXIT.badInput);
      }
      result[key] = resolved;
    } else if (isPlainObject(value)) {
      result[key] = resolveSecrets(value, env, path);
    } else if (isSecretKey(path) && typeof value === "string" && value !== "") {
      throw new CliError(
        `${path} is a secret written into the config file. Put it in an environment variable and write ` +
          `{ "$env": "${envNameFor(path)}" } instead.`,
        EXIT.badInput,
      );
    } else {
      result[key] = value;
    }
  }
  return result;
}

export function findConfigFile(given: string | undefined): string {
  if (given) return given;
  return DEFAULT_CONFIG_FILES.find((name) => existsSync(name)) ?? DEFAULT_CONFIG_FILES[1]!;
}

export function renderConfigFile(path: string, config: ConfigObject): string {
  const json = JSON.stringify(config, null, 2);
  if (!path.endsWith(".ts")) return `${json}\n`;
  return [
    "// The config of a Gatehouse project, kept in the repository: `gatehouse config diff` shows what",
    '// `gatehouse config push` would change. Secrets come from environment variables: { $env: "NAME" }.',
    'import type { GatehouseConfig } from "@gatehouse/cli/config";',
    "",
    `export default ${json} satisfies GatehouseConfig;`,
    "",
  ].join("\n");
}

export async function readConfigFile(path: string): Promise<ConfigObject> {
  if (!existsSync(path))
    throw new CliError(`No config file at ${path}: run \`gatehouse config pull\` first.`, EXIT.usage);
  let value: unknown;
  if (path.endsWith(".ts") || path.endsWith(".mts")) {
    const { transform } = await import("esbuild");
    let code: string;
    try {
      code = (await transform(readFileSync(path, "utf8"), { loader: "ts", format: "esm", sourcefile: path }))
        .code;
    } catch (error) {
      throw new CliError(`${path} does not compile: ${(error as Error).message}`, EXIT.badInput);
    }
    // Beside the original, so that any import in it resolves as it would there.
    const compiled = join(dirname(path), `.${basename(path)}.${process.pid}.mjs`);
    writeFileSync(compiled, code);
    try {
      value = ((await import(pathToFileURL(compiled).href)) as { default?: unknown }).default;
    } catch (error) {
      throw new CliError(`${path} failed to load: ${(error as Error).message}`, EXIT.badInput);
    } finally {
      rmSync(compiled, { force: true });
    }
  } else {
    try {
      value = JSON.parse(readFileSync(path, "utf8"));
    } catch (error) {
      throw new CliError(`${path} is not valid JSON: ${(error as Error).message}`, EXIT.badInput);
    }
  }
  if (!isPlainObject(value))
    throw new CliError(`${path} must hold (export default) an object.`, EXIT.badInput);
  return value;
}

export type Change = { path: string; kind: "added" | "removed" | "changed"; from?: unknown; to?: unknown };

export function diffConfigs(current: ConfigObject, next: ConfigObject): Change[] {
  const before = flatten(current);
  const after = flatten(next);
  const changes: Change[] = [];
  for (const [path, to] of after) {
    if (!before.has(path)) changes.push({ path, kind: "added", to });
    else if (JSON.stringify(before.get(path)) !== JSON.stringify(to)) {
      changes.push({ path, kind: "changed", from: before.get(path), to });
    }
  }
  for (const [path, from] of before) if (!after.has(path)) changes.push({ path, kind: "removed", from });
  return changes.sort((a, b) => a.path.localeCompare(b.path));
}
