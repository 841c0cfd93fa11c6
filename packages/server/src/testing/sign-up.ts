/**
 * Password sign-up and sign-in as a client does it, and the stored rows a sign-up leaves (the user, their contact
 * channels): for every test that needs an account made through the API rather than straight through the service.
 */
import { and, eq } from "drizzle-orm";
import { contactChannels } from "../features/contact-channels/schema.ts";
import { users } from "../features/users/schema.ts";
import type { TestProject, TestServer } from "./harness.ts";

export type Reply = Awaited<ReturnType<TestServer["request"]>>;

export function passwordApi(server: TestServer, project: TestProject) {
  const post = (path: string, body?: unknown, extraHeaders: Record<string, string> = {}) =>
    server.request(`/api/v1${path}`, {
      method: "POST",
      headers: project.headers("client", extraHeaders),
      ...(body === undefined ? {} : { body }),
    });
  const asUser = (accessToken: string, extra: Record<string, string> = {}) => ({
    "x-stack-access-token": accessToken,
    "x-stack-allow-anonymous-user": "true",
    ...extra,
  });
  return {
    post,
    asUser,
    signUp: (body: Record<string, unknown>, headers?: Record<string, string>) =>
      post("/auth/password/sign-up", body, headers),
    signIn: (email: string, password: string, headers?: Record<string, string>) =>
      post("/auth/password/sign-in", { email, password }, headers),
    /** A fresh access token for a refresh token; 401 once the session is gone. */
    refresh: (refreshToken: string) =>
      post("/auth/sessions/current/refresh", undefined, { "x-stack-refresh-token": refreshToken }),
  };
}

export async function storedUser(server: TestServer, projectId: string, userId: string) {
  const [user] = await server.deps.db
    .select()
    .from(users)
    .where(and(eq(users.projectId, projectId), eq(users.id, userId)));
  return user;
}

export async function channelsOf(server: TestServer, projectId: string, userId: string) {
  return server.deps.db
    .select()
    .from(contactChannels)
    .where(and(eq(contactChannels.projectId, projectId), eq(contactChannels.userId, userId)));
}
