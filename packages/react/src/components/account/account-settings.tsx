import { type ReactNode, useEffect } from "react";
import { useStrings } from "../../context.ts";
import { useGatehouseApp, useProject, useUser } from "../../hooks.ts";
import { PageBoundary, SectionBoundary } from "../../internal/boundary.tsx";
import { preloadUserLists, type UserListName } from "../../internal/caches.ts";
import {
  BellIcon,
  KeyIcon,
  MailIcon,
  MonitorIcon,
  ShieldIcon,
  TrashIcon,
  UserIcon,
  UsersIcon,
} from "../../internal/icons.tsx";
import { useLocation } from "../../internal/router.ts";
import { AppLink, Loading, Root } from "../../internal/ui.tsx";
import { TeamSettingsSections } from "../teams/team-settings.tsx";
import { ApiKeysSection } from "./api-keys-section.tsx";
import { DeleteAccountSection } from "./delete-section.tsx";
import { EmailsSection } from "./emails-section.tsx";
import { NotificationsSection } from "./notifications-section.tsx";
import { ProfileSection } from "./profile-section.tsx";
import { SecuritySection } from "./security-section.tsx";
import { SessionsSection } from "./sessions-section.tsx";
import { TeamsSection } from "./teams-section.tsx";

/**
 * The signed-in user's account: profile, e-mails, password, passkeys and two-factor authentication, sessions,
 * API keys and teams (when the project enables them), notifications, and deleting the account (when enabled).
 * `?team=<id>` shows the settings of one of their teams instead. Signed-out visitors are sent to sign-in.
 */
export function AccountSettings() {
  return (
    <PageBoundary>
      <AccountSettingsPage />
    </PageBoundary>
  );
}

type NavItem = { id: string; label: string; icon: ReactNode; section: () => ReactNode };

function AccountSettingsPage() {
  const s = useStrings();
  const app = useGatehouseApp();
  const user = useUser({ or: "redirect", includeRestricted: true });
  const project = useProject();
  const location = useLocation();
  const teamId = location.searchParams.get("team");
  const config = project.config;

  // Every list the sections show, fetched at once rather than one section after another.
  const lists: UserListName[] = ["contactChannels", "sessions", "teams", "notificationCategories"];
  if (config.allowUserApiKeys) lists.push("apiKeys");
  preloadUserLists(app, user.id, lists);

  const items: NavItem[] = [
    { id: "profile", label: s.sectionProfile, icon: <UserIcon />, section: () => <ProfileSection /> },
    { id: "emails", label: s.sectionEmails, icon: <MailIcon />, section: () => <EmailsSection /> },
    { id: "security", label: s.sectionSecurity, icon: <ShieldIcon />, section: () => <SecuritySection /> },
    { id: "sessions", label: s.sectionSessions, icon: <MonitorIcon />, section: () => <SessionsSection /> },
  ];
  if (config.allowUserApiKeys) {
    items.push({
      id: "api-keys",
      label: s.sectionApiKeys,
      icon: <KeyIcon />,
      section: () => <ApiKeysSection />,
    });
  }
  items.push(
    { id: "teams", label: s.sectionTeams, icon: <UsersIcon />, section: () => <TeamsSection /> },
    {
      id: "notifications",
      label: s.sectionNotifications,
      icon: <BellIcon />,
      section: () => <NotificationsSection />,
    },
  );
  if (config.clientUserDeletionEnabled) {
    items.push({
      id: "delete-account",
      label: s.sectionDangerZone,
      icon: <TrashIcon />,
      section: () => <DeleteAccountSection />,
    });
  }

  useEffect(() => {
    const id = location.hash.slice(1);
    if (id) document.getElementById(id)?.scrollIntoView?.({ block: "start" });
  }, [location]);

  return (
    <Root>
      <div className="gh-page gh-page-wide">
        <div className="gh-settings" style={{ margin: "0 auto" }}>
          <nav className="gh-settings-nav" aria-label={s.accountSettingsTitle}>
            <h1 className="gh-settings-nav-title">{s.accountSettingsTitle}</h1>
            {items.map((item) => (
              <AppLink
                key={item.id}
                href={`${app.urls.accountSettings}#${item.id}`}
                className=""
                current={location.hash === `#${item.id}` && !teamId}
              >
                {item.icon}
                {item.label}
              </AppLink>
            ))}
          </nav>
          <div className="gh-settings-main">
            {teamId ? (
              <SectionBoundary fallback={<Loading />}>
                <TeamSettingsSections teamId={teamId} />
              </SectionBoundary>
            ) : (
              items.map((item) => (
                <SectionBoundary key={item.id} fallback={<Loading />}>
                  {item.section()}
                </SectionBoundary>
              ))
            )}
          </div>
        </div>
      </div>
    </Root>
  );
}
