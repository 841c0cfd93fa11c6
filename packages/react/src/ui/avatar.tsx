/** Two letters for a person or team with no picture: "Ada Lovelace" -> "AL", "ada@example.com" -> "AD". */
export function initials(name: string | null | undefined, fallback = "?"): string {
  const words = (name ?? "")
    .replace(/@.*/, "")
    .split(/[\s._-]+/)
    .filter(Boolean);
  const letters = words.length >= 2 ? words[0]![0]! + words[1]![0]! : (words[0]?.slice(0, 2) ?? fallback);
  return letters.toUpperCase();
}

const AVATAR_COLORS = [
  // White initials on each of these reach WCAG AA (4.5:1).
  "#4f46e5",
  "#0369a1",
  "#047857",
  "#b45309",
  "#b91c1c",
  "#7c3aed",
  "#be185d",
  "#0f766e",
];

/** A colour that stays the same for one seed (a user's id), so a list of people tells them apart at a glance. */
export function avatarColor(seed: string): string {
  let hash = 0;
  for (const char of seed) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return AVATAR_COLORS[hash % AVATAR_COLORS.length]!;
}

/**
 * A round picture, or the initials of the name: white on `color` when given (`avatarColor(id)`), otherwise the
 * theme's primary on its soft tint. Decorative: the name is always written beside it.
 */
export function Avatar({
  name,
  imageUrl,
  large,
  team,
  color,
}: {
  name: string | null | undefined;
  imageUrl?: string | null | undefined;
  large?: boolean;
  team?: boolean;
  color?: string;
}) {
  const classes = ["gh-avatar", large ? "gh-avatar-lg" : "", team ? "gh-avatar-team" : ""]
    .filter(Boolean)
    .join(" ");
  return (
    <span
      className={classes}
      style={color ? { background: color, color: "#fff" } : undefined}
      aria-hidden="true"
    >
      {imageUrl ? <img src={imageUrl} alt="" /> : initials(name)}
    </span>
  );
}
