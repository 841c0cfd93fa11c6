// What no auth server on this machine can beat: the password hash each one verifies on sign-in, on the threads
// a server runs it on, and the cheapest read PostgreSQL answers, with the same number of requests in flight.
import { randomBytes, randomUUID, scrypt, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import pg from "pg";
import { measure } from "./load.mjs";

/**
 * Gatehouse's Argon2id parameters, read from its source so that the limit follows them if they change. Only the
 * numbers are read: the TypeScript module itself is not loadable by plain Node.
 */
export function gatehouseArgon2Parameters(root) {
  const source = readFileSync(join(root, "packages/server/src/crypto/password.ts"), "utf8");
  const block = /ARGON2ID_PARAMETERS = \{([^}]*)\}/.exec(source)?.[1];
  const number = (name) => {
    const match = new RegExp(`${name}:\\s*([\\d_]+)`).exec(block ?? "");
    if (!match)
      throw new Error(`cannot read ${name} of ARGON2ID_PARAMETERS in packages/server/src/crypto/password.ts`);
    return Number(match[1].replaceAll("_", ""));
  };
  return {
    memoryCost: number("memoryCost"),
    timeCost: number("timeCost"),
    parallelism: number("parallelism"),
    outputLen: number("outputLen"),
  };
}

/** Argon2id verifies per second with the library and the copy of it the server loads. */
export async function argon2Limit(root, timing) {
  const argon2 = createRequire(join(root, "packages/server/package.json"))("@node-rs/argon2");
  const parameters = gatehouseArgon2Parameters(root);
  // 2 is Argon2id (the package's `Algorithm` is a const enum, so password.ts spells the number out too).
  const hash = await argon2.hash("correct horse battery staple", { ...parameters, algorithm: 2 });
  const result = await measure({
    ...timing,
    step: async () => {
      if (!(await argon2.verify(hash, "correct horse battery staple")))
        throw new Error("argon2 did not verify");
    },
  });
  return { ...result, parameters };
}

/**
 * scrypt verifies per second with Better Auth's parameters on Node (N = 16384, r = 16, p = 1, 64-byte key, in
 * @better-auth/utils' password.node), through node:crypto as it does: its sign-in cannot beat this.
 */
export async function scryptLimit(timing) {
  const options = { N: 16_384, r: 16, p: 1, maxmem: 128 * 16_384 * 16 * 2 };
  const derive = (password, salt) =>
    new Promise((resolve, reject) =>
      scrypt(password.normalize("NFKC"), salt, 64, options, (error, key) =>
        error ? reject(error) : resolve(key),
      ),
    );
  const salt = randomBytes(16).toString("hex");
  const stored = await derive("correct horse battery staple", salt);
  return measure({
    ...timing,
    step: async () => {
      if (!timingSafeEqual(await derive("correct horse battery staple", salt), stored)) {
        throw new Error("scrypt did not verify");
      }
    },
  });
}

/** A table of 10,000 user-like rows for `rawSelectLimit`, made before anything is timed. */
export async function seedRawSelectTable(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`create table bench_users (
      id uuid primary key, email text not null unique, display_name text, created_at timestamptz not null default now())`);
    await client.query(
      `insert into bench_users (id, email, display_name)
       select id, 'user' || n || '@example.com', 'User ' || n from unnest($1::uuid[]) with ordinality as t(id, n)`,
      [Array.from({ length: 10_000 }, () => randomUUID())],
    );
    await client.query("analyze bench_users");
  } finally {
    await client.end();
  }
}

/**
 * Primary-key selects per second of one row of `seedRawSelectTable`, over a pg Pool with one connection per request
 * in flight, as a named (prepared) statement: the round trip and PostgreSQL's cheapest read, nothing else.
 */
export async function rawSelectLimit(databaseUrl, timing) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: timing.concurrency });
  try {
    const ids = (await pool.query("select id from bench_users")).rows.map((row) => row.id);
    let next = 0;
    return await measure({
      ...timing,
      step: async () => {
        const { rows } = await pool.query({
          name: "bench-user-by-id",
          text: "select id, email, display_name, created_at from bench_users where id = $1",
          values: [ids[next++ % ids.length]],
        });
        if (rows.length !== 1) throw new Error("the select found no row");
      },
    });
  } finally {
    await pool.end();
  }
}
