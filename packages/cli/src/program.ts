/** The `gatehouse` command tree (commander), and how errors become messages and exit codes. */
import { Command, CommanderError } from "commander";
import pc from "picocolors";
import { ApiError, CLI_VERSION } from "./api.ts";
import { registerAuthCommands } from "./commands/auth.ts";
import { registerConfigCommands } from "./commands/config.ts";
import { registerInitCommand } from "./commands/init.ts";
import { registerProjectCommands } from "./commands/projects.ts";
import { registerUserCommands } from "./commands/users.ts";
import { CliError, EXIT } from "./errors.ts";

export function buildProgram(): Command {
  const program = new Command("gatehouse")
    .description(
      "The Gatehouse command line: log in, set up an app, keep config in the repository, move users.",
    )
    .version(CLI_VERSION)
    .option("--api-url <url>", "the Gatehouse server (default $GATEHOUSE_API_URL or http://localhost:8102)")
    .option(
      "--project <id>",
      "the project to work on (default $GATEHOUSE_PROJECT_ID or the app's .env.local)",
    )
    .option("--json", "print results as JSON on stdout")
    .option("-y, --yes", "answer yes to confirmations (for CI)")
    .option("--no-color", "no colours (also when not a terminal, or with NO_COLOR set)")
    .showHelpAfterError("(add --help for usage)")
    .exitOverride()
    .configureOutput({
      outputError: (text, write) => write(process.stderr.isTTY ? pc.red(text) : text),
    });
  registerAuthCommands(program);
  registerInitCommand(program);
  registerConfigCommands(program);
  registerProjectCommands(program);
  registerUserCommands(program);
  return program;
}

/** Runs the CLI on `argv` and gives the exit code. */
export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successes; every other parse failure was printed by commander already.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const say = (text: string) => process.stderr.write(`${process.stderr.isTTY ? pc.red(text) : text}\n`);
    if (error instanceof CliError) {
      say(`Error: ${error.message}`);
      return error.exitCode;
    }
    if (error instanceof ApiError) {
      say(
        `Error: the server answered ${error.status}${error.code ? ` ${error.code}` : ""}: ${error.message}`,
      );
      return error.status === 401 ? EXIT.auth : EXIT.failed;
    }
    say(`Unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return EXIT.failed;
  }
}
