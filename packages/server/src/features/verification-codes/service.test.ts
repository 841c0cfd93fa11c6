/**
 * openCode: a link's code read without spending it or counting an attempt (unsubscribe links, purchase codes), with
 * the errors of consumeVerificationCode in their order.
 */
import { KnownError } from "@gatehouse/shared";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { verificationCodes } from "./schema.ts";
import { createVerificationCode, markCodeUsed, openCode } from "./service.ts";

let server: TestServer;
let project: TestProject;
let other: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Codes");
  other = await server.createProject("Other codes");
});
afterAll(() => server.close());

const make = (lifetimeMs?: number) =>
  createVerificationCode(server.deps.db, {
    projectId: project.id,
    purpose: "purchase",
    data: { n: 1 },
    lifetimeMs,
  });

/** The known error openCode throws, or "none". */
async function outcome(input: Parameters<typeof openCode>[1]): Promise<string> {
  try {
    await openCode(server.deps.db, input);
    return "none";
  } catch (error) {
    if (error instanceof KnownError) return error.code;
    throw error;
  }
}

describe("openCode", () => {
  it("returns the live code of this project and purpose, without spending it or counting an attempt", async () => {
    const { code, row } = await make();
    for (const projectId of [project.id, null]) {
      const opened = await openCode(server.deps.db, { projectId, purpose: "purchase", code });
      expect(opened.id).toBe(row.id);
      expect(opened.data).toEqual({ n: 1 });
    }
    // Typed in capitals with spaces around it, it is the same code.
    expect(
      (
        await openCode(server.deps.db, {
          projectId: project.id,
          purpose: "purchase",
          code: ` ${code.toUpperCase()} `,
        })
      ).id,
    ).toBe(row.id);
    const [stored] = await server.deps.db
      .select()
      .from(verificationCodes)
      .where(eq(verificationCodes.id, row.id));
    expect(stored!.usedAt).toBeNull();
    expect(stored!.attemptCount).toBe(0);
  });

  it("does not find a code of another purpose, of another project, or no code at all", async () => {
    const { code } = await make();
    expect(await outcome({ projectId: project.id, purpose: "unsubscribe", code })).toBe(
      "VERIFICATION_CODE_NOT_FOUND",
    );
    expect(await outcome({ projectId: null, purpose: "unsubscribe", code })).toBe(
      "VERIFICATION_CODE_NOT_FOUND",
    );
    expect(await outcome({ projectId: other.id, purpose: "purchase", code })).toBe(
      "VERIFICATION_CODE_NOT_FOUND",
    );
    expect(await outcome({ projectId: project.id, purpose: "purchase", code: "x".repeat(code.length) })).toBe(
      "VERIFICATION_CODE_NOT_FOUND",
    );
  });

  it("refuses an expired code, and a used one unless the caller accepts used codes", async () => {
    const expired = await make(-1000);
    expect(await outcome({ projectId: project.id, purpose: "purchase", code: expired.code })).toBe(
      "VERIFICATION_CODE_EXPIRED",
    );
    // Expiry comes first, as in consumeVerificationCode: an expired code that was also used reads as expired.
    await markCodeUsed(server.deps.db, project.id, expired.row.id);
    expect(
      await outcome({ projectId: project.id, purpose: "purchase", code: expired.code, acceptUsed: true }),
    ).toBe("VERIFICATION_CODE_EXPIRED");

    const used = await make();
    expect(await markCodeUsed(server.deps.db, project.id, used.row.id)).toBe(true);
    expect(await outcome({ projectId: project.id, purpose: "purchase", code: used.code })).toBe(
      "VERIFICATION_CODE_ALREADY_USED",
    );
    const opened = await openCode(server.deps.db, {
      projectId: project.id,
      purpose: "purchase",
      code: used.code,
      acceptUsed: true,
    });
    expect(opened.id).toBe(used.row.id);
    expect(opened.usedAt).toBeInstanceOf(Date);
  });
});
