/** OAuth providers' names as people read them, for every page that lists a user's or a project's providers. */
export const CUSTOM = "custom_oidc";

/** Providers as their owners spell them. */
const PROVIDER_NAMES: Record<string, string> = {
  github: "GitHub",
  gitlab: "GitLab",
  linkedin: "LinkedIn",
  x: "X",
  [CUSTOM]: "OpenID Connect",
};
export function providerName(id: string): string {
  return PROVIDER_NAMES[id] ?? `${id[0]!.toUpperCase()}${id.slice(1)}`;
}
