import { describe, expect, it } from "vitest";
import { newProjectOverride } from "./defaults.ts";
import { legacyConfigUpdateSchema, legacyConfigUpdateToOverride } from "./legacy-update.ts";
import { toClientProjectConfig, toLegacyConfigView } from "./legacy-view.ts";
import { mergeOverrideOverride } from "./override.ts";
import { renderConfig } from "./render.ts";
import { NEW_PROJECT_LEGACY_SWITCHES, rendered } from "./test-support.ts";

/** A new project's override with a legacy update applied, the way the project endpoints store it. */
function update(current: ReturnType<typeof newProjectOverride>, legacy: unknown) {
  return mergeOverrideOverride(current, legacyConfigUpdateToOverride(legacyConfigUpdateSchema.parse(legacy)));
}

describe("toClientProjectConfig", () => {
  it("exposes only the client fields", () => {
    const override = update(newProjectOverride(), {
      oauth_providers: [
        { id: "google", type: "shared" },
        { id: "github", type: "standard", client_id: "id", client_secret: "secret", enabled: false },
      ],
      domains: [{ domain: "https://app.example.com", handler_path: "/handler" }],
      magic_link_enabled: true,
    });
    expect(toClientProjectConfig(rendered(renderConfig({ project: override })))).toStrictEqual({
      ...NEW_PROJECT_LEGACY_SWITCHES,
      magic_link_enabled: true,
      enabled_oauth_providers: [{ id: "google" }],
      domains: [{ domain: "https://app.example.com", handler_path: "/handler" }],
    });
  });
});

describe("legacy view of config set through the config API", () => {
  it("lists every provider with its config id, and enabled ones once per type", () => {
    const config = rendered(
      renderConfig({
        environment: {
          "auth.oauth.providers.google": {
            type: "google",
            isShared: false,
            clientId: "a",
            clientSecret: "b",
          },
          "auth.oauth.providers.google-2": { type: "google" },
          "auth.oauth.providers.off": { type: "discord", allowSignIn: false },
        },
      }),
    );
    const result = toLegacyConfigView(config);
    expect(result.oauth_providers).toEqual([
      { provider_config_id: "off", id: "discord", type: "shared" },
      { provider_config_id: "google", id: "google", type: "standard", client_id: "a", client_secret: "b" },
      { provider_config_id: "google-2", id: "google", type: "shared" },
    ]);
    expect(result.enabled_oauth_providers).toEqual([{ id: "google" }]);
    // The selected theme defaults to Default Light (PROTOCOL-EXTRA §1.1), so the view always names one.
    expect(result.email_theme).toBe("1df07ae6-abf3-4a40-83a5-a1a2cbe336ac");
  });
});
