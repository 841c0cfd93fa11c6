/**
 * Our own docs, given to the model as context: a few sections of the README (read once, at first use) and a short
 * summary of the admin API and config keys. Kept small on purpose: the tools give the project's actual state.
 */
import { readFileSync } from "node:fs";
import { README_FILE } from "../../package-root.ts";

const README_SECTIONS = ["Gatehouse", "Rate limits", "Payments"];
const MAX_README_CHARS = 7000;

const API_SUMMARY = `Config (dot-notation keys in a JSON override; PATCH /internal/config/override/environment):
- auth.allowSignUp, auth.password.allowSignIn, auth.otp.allowSignIn, auth.passkey.allowSignIn
- auth.oauth.providers.<id> {type, isShared, clientId, clientSecret, allowSignIn, allowConnectedAccounts}
- domains.trustedDomains.<id> {baseUrl, handlerPath}, domains.allowLocalhost
- onboarding.requireEmailVerification; users.allowClientUserDeletion
- teams.createPersonalTeamOnSignUp, teams.allowClientTeamCreation
- rbac.permissions.<id> {description, scope: "team"|"project", containedPermissionIds: {<id>: true}},
  rbac.defaultPermissions.{teamCreator,teamMember,signUp}.<id>: true
- emails.server {isShared, host, port, username, password, senderEmail, senderName}; emails.templates.<uuid>
  {displayName, tsxSource, themeId}; emails.themes.<uuid>; emails.selectedThemeId
- apiKeys.enabled.{user,team}; gatehouse.rateLimits.<rule id> {limit, windowSeconds}
- payments (items, products, productLines, testMode)
Admin API (under /api/v1, x-stack-access-type: admin): /users (list, search with ?query=), /teams,
/internal/config, /internal/config/override/{level}, /internal/email-templates, /internal/email-themes,
/emails/outbox (sent emails and their status), /internal/metrics, /project-permission-definitions,
/team-permission-definitions. Email templates are TSX (React Email) exporting EmailTemplate({user, project,
variables}) and using <Subject value=…/> from "@stackframe/emails".`;

let cached: string | undefined;

/** The docs block of the system prompt. */
export function docsContext(): string {
  if (cached === undefined) cached = `${readmeExcerpt()}\n\n${API_SUMMARY}`;
  return cached;
}

function readmeExcerpt(): string {
  let text: string;
  try {
    text = readFileSync(README_FILE, "utf8");
  } catch {
    return "";
  }
  const sections = text.split(/\n(?=#{1,3} )/);
  const picked = sections.filter((section) => {
    const title = /^#{1,3} (.*)/.exec(section)?.[1]?.trim();
    return title !== undefined && README_SECTIONS.includes(title);
  });
  return picked.join("\n").slice(0, MAX_README_CHARS);
}
