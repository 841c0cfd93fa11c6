import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** What the package tests share: packing a workspace package and running commands in scratch folders. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const run = promisify(execFile);

const rootPackage = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  devDependencies: Record<string, string>;
};
/** A scratch app installs the same versions the repository uses, so npm finds them in its cache. */
export const versionOf = (name: string) => rootPackage.devDependencies[name]!;

/** Runs a command to the end; a failure says what ran where, with everything it printed. */
export async function sh(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd, env, maxBuffer: 32 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(" ")} failed in ${cwd}:\n${failed.stdout ?? ""}\n${failed.stderr ?? ""}`,
    );
  }
}

/**
 * `npm pack` of packages/<name> into `destination`, running the package's prepack (its build) as a publish would.
 * Returns the tarball's path. npm names it from the manifest, and the prepack's output shares stdout with npm's own,
 * so the name is not read from what npm printed.
 */
export async function packWorkspacePackage(name: string, destination: string): Promise<string> {
  const dir = join(ROOT, "packages", name);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    name: string;
    version: string;
  };
  await sh("npm", ["pack", "--pack-destination", destination, "--loglevel=warn"], dir);
  return join(destination, `${manifest.name.replace(/^@/, "").replace("/", "-")}-${manifest.version}.tgz`);
}

/** The paths inside a tarball, `package/…` as npm lays them out. */
export async function tarballFiles(tarball: string): Promise<string[]> {
  return (await sh("tar", ["-tzf", tarball], ROOT)).trim().split("\n");
}
