import { describe, expect, it } from "vitest";
import { CONFIG_SECRET_PATHS, isSecretConfigPath, mapConfigSecrets } from "./secrets.ts";

describe("config secrets", () => {
  it("lists the secret paths", () => {
    expect(CONFIG_SECRET_PATHS).toEqual([
      "auth.oauth.providers.*.clientSecret",
      "auth.oauth.providers.*.applePrivateKey",
      "emails.server.password",
    ]);
    expect(isSecretConfigPath("auth.oauth.providers.google.clientSecret")).toBe(true);
    expect(isSecretConfigPath(["emails", "server", "password"])).toBe(true);
    expect(isSecretConfigPath("auth.oauth.providers.google.clientId")).toBe(false);
    expect(isSecretConfigPath("auth.oauth.providers.clientSecret")).toBe(false);
  });

  it("maps secrets whichever way the override spells them", () => {
    const seen: string[] = [];
    const result = mapConfigSecrets(
      {
        "auth.oauth.providers.google.clientSecret": "g",
        "auth.oauth.providers.github": { type: "github", clientSecret: "h", clientId: "id" },
        emails: { server: { password: "p", username: "u" } },
        "auth.oauth.providers.x.clientSecret": null,
      },
      (value, path) => {
        seen.push(path);
        return `enc(${value})`;
      },
    );
    // The keys keep their spelling: a stored override reads back as it was written.
    expect(result).toEqual({
      "auth.oauth.providers.google.clientSecret": "enc(g)",
      "auth.oauth.providers.github": { type: "github", clientSecret: "enc(h)", clientId: "id" },
      emails: { server: { password: "enc(p)", username: "u" } },
      "auth.oauth.providers.x.clientSecret": null,
    });
    expect(seen.sort()).toEqual([
      "auth.oauth.providers.github.clientSecret",
      "auth.oauth.providers.google.clientSecret",
      "emails.server.password",
    ]);
  });
});
