/**
 * The legacy project update rewrites provider entries whole (`oauth_providers` replaces the record): what it must
 * keep of the provider settings it has no names for (endpoint overrides, Apple's key, generic OpenID Connect).
 */
import { describe, expect, it } from "vitest";
import { newProjectOverride } from "./defaults.ts";
import type { ConfigOverride } from "./json.ts";
import { legacyConfigUpdateSchema, legacyConfigUpdateToOverride } from "./legacy-update.ts";
import { toLegacyConfigView } from "./legacy-view.ts";
import { mergeOverrideOverride, normalizeOverride } from "./override.ts";
import { renderConfig } from "./render.ts";
import { rendered } from "./test-support.ts";

function view(project: ConfigOverride) {
  return toLegacyConfigView(rendered(renderConfig({ project })));
}

describe("a legacy update of OAuth providers", () => {
  it("keeps what the legacy shape cannot say about a provider it rewrites with the project's own keys", () => {
    const current = normalizeOverride({
      ...newProjectOverride(),
      "auth.oauth.providers.gitlab": {
        type: "gitlab",
        isShared: false,
        clientId: "gl",
        clientSecret: "gl-secret",
        issuerUrl: "https://gitlab.corp.example",
      },
      "auth.oauth.providers.corp": {
        type: "custom_oidc",
        isShared: false,
        clientId: "corp",
        clientSecret: "corp-secret",
        issuerUrl: "https://id.corp.example",
        displayName: "Corp SSO",
      },
    });
    // What an SDK or the dashboard does: send back the list it read, plus a change.
    const read = view(current).oauth_providers;
    expect(read.map((p) => p.id).sort()).toEqual(["custom_oidc", "gitlab"]);
    const write = (base: ConfigOverride, providers: unknown[]) =>
      mergeOverrideOverride(
        base,
        legacyConfigUpdateToOverride(
          legacyConfigUpdateSchema.parse({ oauth_providers: providers }),
          {},
          base,
        ),
      );
    const next = write(current, [...read, { id: "google", type: "shared" }]);
    const providers = rendered(renderConfig({ project: next })).auth.oauth.providers;
    expect(providers.gitlab).toMatchObject({ clientId: "gl", issuerUrl: "https://gitlab.corp.example" });
    expect(providers.corp).toMatchObject({
      type: "custom_oidc",
      issuerUrl: "https://id.corp.example",
      displayName: "Corp SSO",
    });
    expect(providers.google).toMatchObject({ type: "google", isShared: true });
    // Turned to shared keys, the settings of the project's own app go (they mean nothing there).
    const shared = write(next, [{ id: "gitlab", type: "shared" }]);
    expect(
      rendered(renderConfig({ project: shared })).auth.oauth.providers.gitlab?.issuerUrl,
    ).toBeUndefined();
  });
});
