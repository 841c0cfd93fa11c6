/** How the OAuth providers of PROTOCOL.md §3.10 are named and coloured on their buttons. */
const PROVIDERS: Record<string, { name: string; color: string; letter: string }> = {
  google: { name: "Google", color: "#4285f4", letter: "G" },
  github: { name: "GitHub", color: "#24292f", letter: "GH" },
  microsoft: { name: "Microsoft", color: "#00a4ef", letter: "M" },
  spotify: { name: "Spotify", color: "#1db954", letter: "S" },
  facebook: { name: "Facebook", color: "#1877f2", letter: "f" },
  discord: { name: "Discord", color: "#5865f2", letter: "D" },
  gitlab: { name: "GitLab", color: "#fc6d26", letter: "GL" },
  bitbucket: { name: "Bitbucket", color: "#2684ff", letter: "B" },
  linkedin: { name: "LinkedIn", color: "#0a66c2", letter: "in" },
  apple: { name: "Apple", color: "#000000", letter: "A" },
  x: { name: "X", color: "#000000", letter: "X" },
  twitch: { name: "Twitch", color: "#9146ff", letter: "T" },
};

export function providerInfo(id: string): { name: string; color: string; letter: string } {
  return (
    PROVIDERS[id.toLowerCase()] ?? {
      name: id.charAt(0).toUpperCase() + id.slice(1),
      color: "#6b7280",
      letter: id.charAt(0).toUpperCase(),
    }
  );
}
