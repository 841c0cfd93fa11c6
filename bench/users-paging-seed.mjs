// Seeds a project with many users for bench/users-paging.mjs. Creating them one by one (HTTP or createUser) costs a
// transaction and several round trips each, minutes for 20,000; batched inserts give the same rows in seconds.
// Each user looks like one that signed up with the project's defaults: a primary email channel used for sign-in
// and a personal team that is their selected team (createPersonalTeamOnSignUp is on by default). Default
// permissions from the user-created hooks are left out: listing and reading users never looks at them.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { contactChannels } from "../packages/server/src/features/contact-channels/schema.ts";
import { teamMembers, teams } from "../packages/server/src/features/teams/schema.ts";
import { users } from "../packages/server/src/features/users/schema.ts";

const FIRST_NAMES = `Olivia Liam Emma Noah Amelia Oliver Sophia Elijah Mia Lucas Ava Mateo
  Isabella Levi Aria Ezra Chloe Kai Nora Leo Hana Yusuf Priya Jonas`.split(/\s+/);
const LAST_NAMES = `Smith Garcia Nguyen Schulz Kowalski Rossi Tanaka Okafor Silva Johansson
  Dubois Haddad Petrov Kim Moreau Fischer Novak Costa Ivanova Brown`.split(/\s+/);
/** The surname the common-substring search looks for: about one user in LAST_NAMES.length carries it. */
export const COMMON_SEARCH = "garcia";

/** Rows per INSERT: the users table has ~20 columns, so 1,000 rows stay well below PostgreSQL's 65,535 parameters. */
const BATCH_SIZE = 1000;
/** Sign-ups spread over two years before now, in arrival order with jitter, as a real project accumulates them. */
const SPAN_MS = 2 * 365 * 24 * 3600 * 1000;

/** A small seeded generator, so that two runs of the bench query the same data. */
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function userAt(index, count, now, random) {
  const first = FIRST_NAMES[Math.floor(random() * FIRST_NAMES.length)];
  const last = LAST_NAMES[Math.floor(random() * LAST_NAMES.length)];
  const displayName = `${first} ${last}`;
  const email = `${first}.${last}.${index}@example.com`.toLowerCase();
  // Whole seconds, and every 200th user shares the previous one's second (an import), so ties in signed_up_at
  // exist and the id tie-break of the cursor is exercised.
  const slot = index - (index % 200 === 199 ? 1 : 0);
  const signedUpAt = new Date(
    Math.floor((now - SPAN_MS + (slot / count) * SPAN_MS + random() * 60_000) / 1000) * 1000,
  );
  const lastActiveAt = new Date(signedUpAt.getTime() + random() * (now - signedUpAt.getTime()));
  return { id: randomUUID(), teamId: randomUUID(), displayName, email, signedUpAt, lastActiveAt };
}

/**
 * Inserts `count` users into `projectId`, `BATCH_SIZE` per transaction, then refreshes the planner's statistics
 * (autovacuum would do so shortly after a real bulk import). Returns a few of them for the search and read figures.
 */
export async function seedUsers(db, projectId, count, onProgress = () => {}) {
  const random = seededRandom(20_000);
  const now = Date.now();
  const samples = [];
  for (let start = 0; start < count; start += BATCH_SIZE) {
    const batch = [];
    for (let index = start; index < Math.min(start + BATCH_SIZE, count); index++)
      batch.push(userAt(index, count, now, random));
    await db.transaction(async (tx) => {
      await tx.insert(teams).values(
        batch.map((user) => ({
          projectId,
          id: user.teamId,
          displayName: `${user.displayName}'s Team`,
          createdAt: user.signedUpAt,
        })),
      );
      await tx.insert(users).values(
        batch.map((user) => ({
          projectId,
          id: user.id,
          displayName: user.displayName,
          // Shaped like an argon2id PHC string; no one signs in during the bench, it only makes has_password true.
          passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$YmVuY2hzYWx0$YmVuY2hoYXNo",
          selectedTeamId: user.teamId,
          signedUpAt: user.signedUpAt,
          lastActiveAt: user.lastActiveAt,
        })),
      );
      await tx.insert(teamMembers).values(
        batch.map((user) => ({
          projectId,
          teamId: user.teamId,
          userId: user.id,
          createdAt: user.signedUpAt,
        })),
      );
      await tx.insert(contactChannels).values(
        batch.map((user) => ({
          projectId,
          id: randomUUID(),
          userId: user.id,
          type: "email",
          value: user.email,
          isVerified: random() < 0.8,
          isPrimary: true,
          usedForAuth: true,
          createdAt: user.signedUpAt,
        })),
      );
    });
    samples.push(batch[Math.floor(batch.length / 2)]);
    onProgress(start + batch.length);
  }
  for (const table of ["users", "contact_channels", "teams", "team_members"])
    await db.execute(sql.raw(`analyze ${table}`));
  return samples;
}
