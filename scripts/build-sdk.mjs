// Packs @gatehouse/shared, @gatehouse/js and @gatehouse/react with `npm pack` (each prepack builds its package)
// into packages/server/sdk-tarballs/ under version-free names, where the server serves them at /sdk/<name>.tgz. They are
// on no registry: an app installs them from the server with the line @gatehouse/shared's install/ module writes,
//   npm install http://localhost:8102/sdk/gatehouse-shared.tgz http://localhost:8102/sdk/gatehouse-js.tgz ...
//
//   node scripts/build-sdk.mjs   (npm run build:sdk)
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const destination = join(root, "packages/server/sdk-tarballs");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

mkdirSync(destination, { recursive: true });
const scratch = mkdtempSync(join(tmpdir(), "gatehouse-sdk-"));
try {
  // In dependency order: each prepack builds on the declarations of the ones packed before it.
  for (const name of ["shared", "js", "react"]) {
    const dir = join(root, "packages", name);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    execFileSync(npm, ["pack", "--pack-destination", scratch, "--loglevel=warn"], {
      cwd: dir,
      stdio: "inherit",
    });
    const packed = `${manifest.name.replace(/^@/, "").replace("/", "-")}-${manifest.version}.tgz`;
    renameSync(join(scratch, packed), join(destination, `gatehouse-${name}.tgz`));
    console.log(
      `Packed ${manifest.name} ${manifest.version} as packages/server/sdk-tarballs/gatehouse-${name}.tgz`,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
console.log("The server serves them at /sdk/gatehouse-<name>.tgz.");
