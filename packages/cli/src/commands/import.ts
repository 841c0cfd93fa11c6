/**
 * `gatehouse users import <file>`: two passes over the file, each streaming it in batches. The first maps every
 * record and has the server check each batch without writing (`dry_run`); only when nothing is wrong (or with
 * --skip-invalid) does the second pass create the users. So a bad row at line 90,000 leaves nothing half-imported.
 */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { contextOf, type Owner, ownerOf, resolveProject } from "../context.ts";
import { CliError, EXIT } from "../errors.ts";
import {
  type FirebaseHashConfig,
  mapRecord,
  RowError,
  SOURCES,
  type Source,
  type UserBody,
} from "../import/formats.ts";
import { readRecords } from "../import/read.ts";
import { type Output, progress } from "../output.ts";

type ImportAnswer = { imported: number; user_ids: string[]; errors: { index: number; message: string }[] };
type Problem = { line: number; message: string };
type Options = {
  from: string;
  csv?: boolean;
  skipInvalid?: boolean;
  batchSize: string;
  firebaseSignerKey?: string;
  firebaseSaltSeparator?: string;
  firebaseRounds?: string;
  firebaseMemCost?: string;
};

const SHOWN_PROBLEMS = 20;

/** Mapped records, in batches, each entry with its line; mapping problems go to `problems`. */
async function* batches(
  path: string,
  settings: { source: Source; csv: boolean; firebase?: FirebaseHashConfig; size: number },
  problems: Problem[] | null,
  skipLines: Set<number>,
) {
  let batch: { line: number; body: UserBody }[] = [];
  for await (const record of readRecords(path, settings.csv)) {
    if (skipLines.has(record.line)) continue;
    if ("error" in record) {
      problems?.push({ line: record.line, message: record.error });
      continue;
    }
    try {
      const body = mapRecord(
        settings.source,
        record.value,
        settings.firebase ? { firebase: settings.firebase } : {},
      );
      batch.push({ line: record.line, body });
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      problems?.push({ line: record.line, message: error.message });
      continue;
    }
    if (batch.length >= settings.size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

function firebaseConfig(options: Options): FirebaseHashConfig | undefined {
  if (!options.firebaseSignerKey) return undefined;
  if (!options.firebaseSaltSeparator || !options.firebaseRounds || !options.firebaseMemCost) {
    throw new CliError(
      "--firebase-signer-key needs --firebase-salt-separator, --firebase-rounds and --firebase-mem-cost too.",
      EXIT.usage,
    );
  }
  return {
    signerKey: options.firebaseSignerKey,
    saltSeparator: options.firebaseSaltSeparator,
    rounds: Number(options.firebaseRounds),
    memCost: Number(options.firebaseMemCost),
  };
}

function report(out: Output, problems: Problem[]) {
  problems.sort((a, b) => a.line - b.line);
  for (const problem of problems.slice(0, SHOWN_PROBLEMS))
    out.note(`  line ${problem.line}: ${problem.message}`);
  if (problems.length > SHOWN_PROBLEMS) out.note(`  ... and ${problems.length - SHOWN_PROBLEMS} more`);
}

async function importFile(owner: Owner, projectId: string, path: string, options: Options) {
  const { out } = owner.ctx;
  if (!SOURCES.includes(options.from as Source)) {
    throw new CliError(`--from must be one of ${SOURCES.join(", ")}; got ${options.from}.`, EXIT.usage);
  }
  const size = Number(options.batchSize);
  if (!Number.isInteger(size) || size < 1 || size > 1000) {
    throw new CliError("--batch-size takes a whole number from 1 to 1000.", EXIT.usage);
  }
  if (!existsSync(path)) throw new CliError(`No file at ${path}.`, EXIT.usage);
  const firebase = firebaseConfig(options);
  const settings = {
    source: options.from as Source,
    csv: options.csv === true || path.toLowerCase().endsWith(".csv"),
    size,
    ...(firebase ? { firebase } : {}),
  };
  const send = (users: UserBody[], dryRun: boolean) =>
    owner.asAdmin<ImportAnswer>(projectId, "/users/import", {
      method: "POST",
      body: { users, dry_run: dryRun, ...(dryRun ? {} : { skip_invalid: false }) },
    });

  // Pass 1: map and check everything; remember emails across batches (the server sees one batch at a time).
  const problems: Problem[] = [];
  const emails = new Map<string, number>();
  let valid = 0;
  let checked = 0;
  for await (const batch of batches(path, settings, problems, new Set())) {
    const answer = await send(
      batch.map((entry) => entry.body),
      true,
    );
    const bad = new Set<number>();
    for (const error of answer.errors) {
      bad.add(error.index);
      // The server counts within the batch; the user counts lines.
      const message = error.message.replace(
        /entry (\d+) of this batch/,
        (_, n) => `line ${batch[Number(n)]?.line}`,
      );
      problems.push({ line: batch[error.index]!.line, message });
    }
    for (const [index, entry] of batch.entries()) {
      if (bad.has(index)) continue;
      const email =
        typeof entry.body.primary_email === "string" ? entry.body.primary_email.toLowerCase() : null;
      const first = email ? emails.get(email) : undefined;
      if (email && first !== undefined) {
        problems.push({ line: entry.line, message: `primary_email ${email} is also on line ${first}` });
        continue;
      }
      if (email) emails.set(email, entry.line);
      valid++;
    }
    checked += batch.length;
    if (!out.json && process.stderr.isTTY) process.stderr.write(`\rChecked ${checked} records...`);
  }
  if (!out.json && process.stderr.isTTY) process.stderr.write("\n");
  emails.clear();

  if (problems.length > 0) {
    out.note(`${problems.length} record${problems.length === 1 ? "" : "s"} cannot be imported:`);
    report(out, problems);
    if (!options.skipInvalid) {
      if (out.json) out.result({ imported: 0, problems }, () => "");
      throw new CliError(
        "Nothing was imported. Fix the file, or pass --skip-invalid to import the rest.",
        EXIT.badInput,
      );
    }
  }

  // Pass 2: create the users, skipping what pass 1 refused.
  const skip = new Set(problems.map((problem) => problem.line));
  const bar = progress(out, valid, "Importing users");
  let imported = 0;
  for await (const batch of batches(path, settings, null, skip)) {
    const answer = await send(
      batch.map((entry) => entry.body),
      false,
    );
    if (answer.errors.length > 0) {
      bar.stop(`Stopped after ${imported} users.`);
      const first = answer.errors[0]!;
      throw new CliError(
        `The server refused line ${batch[first.index]!.line} (${first.message}); that batch was not imported. ` +
          `${imported} users from earlier batches were.`,
      );
    }
    imported += answer.imported;
    bar.advance(answer.imported);
  }
  bar.stop(`Imported ${imported} users.`);
  out.result({ imported, skipped: problems.length, problems }, () =>
    out.color.green(`Imported ${imported} users${problems.length ? `, skipped ${problems.length}` : ""}.`),
  );
}

export function registerImportCommand(users: Command): void {
  users
    .command("import <file>")
    .description("import users from a JSON, JSON Lines or CSV export, keeping password hashes")
    .option("--from <system>", `whose export the file is: ${SOURCES.join(", ")}`, "gatehouse")
    .option("--csv", "read the file as CSV (the default for .csv files)")
    .option("--skip-invalid", "import the valid records even when some are not")
    .option("--batch-size <n>", "users per request", "500")
    .option("--firebase-signer-key <base64>", "Firebase: the project's base64_signer_key")
    .option("--firebase-salt-separator <base64>", "Firebase: base64_salt_separator")
    .option("--firebase-rounds <n>", "Firebase: rounds")
    .option("--firebase-mem-cost <n>", "Firebase: mem_cost")
    .addHelpText(
      "after",
      "\nEvery record is checked before any is written; a bad record is reported with its line and nothing is\n" +
        "imported unless --skip-invalid is given. bcrypt, Argon2 and scrypt hashes (Firebase's too) keep working.",
    )
    .action(async (file: string, options: Options, command: Command) => {
      const owner = await ownerOf(contextOf(command));
      await importFile(owner, await resolveProject(owner), file, options);
    });
}
