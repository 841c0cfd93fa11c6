#!/usr/bin/env node
// The `gatehouse-server` command of the installed package. Help and version are answered here, because importing
// the server starts it; every other command is left in process.argv for dist/main.js to read.
import { readFileSync } from "node:fs";

const USAGE = `Usage: gatehouse-server [command]

Commands:
  serve          start the API and the dashboard on $PORT (default 8102); the default command
  migrate        apply pending database migrations to DATABASE_URL, then exit

Options:
  -h, --help     show this help
  -v, --version  print the version

Everything else is configured with environment variables: NODE_ENV=production, GATEHOUSE_SECRET,
DATABASE_URL, GATEHOUSE_BASE_URL, PORT, ... (the README's Deploy and Configuration sections).
`;

const command = process.argv[2];
if (command === "-h" || command === "--help" || command === "help") {
  process.stdout.write(USAGE);
} else if (command === "-v" || command === "--version") {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`${manifest.version}\n`);
} else if (command === undefined || command === "serve" || command === "migrate") {
  // The server reads only `migrate`; an explicit `serve` is the default spelled out.
  if (command === "serve") process.argv.splice(2, 1);
  // What `node --enable-source-maps` does for the README's start command: stack traces name the sources' lines.
  process.setSourceMapsEnabled(true);
  await import("../dist/main.js");
} else {
  process.stderr.write(`gatehouse-server: unknown command "${command}"\n\n${USAGE}`);
  process.exitCode = 2;
}
