// @gatehouse/react: the provider, hooks and components of Gatehouse for React 19 apps (sources consumed
// directly, e.g. by Vite).
export { AccountSettings } from "./components/account/account-settings.tsx";
export { EmailVerification, MagicLinkCallback, OAuthCallback } from "./components/callback-pages.tsx";
export { CliAuthConfirm } from "./components/cli-auth-confirm.tsx";
export { ErrorPage } from "./components/error-page.tsx";
export { GatehouseHandler, handlerPageFor } from "./components/handler.tsx";
export { Impersonate } from "./components/impersonate.tsx";
export { MfaCodeEntry } from "./components/mfa.tsx";
export { ForgotPassword, PasswordReset } from "./components/password-pages.tsx";
export { SignIn, type SignInProps } from "./components/sign-in.tsx";
export { SignOut } from "./components/sign-out.tsx";
export { SignUp, type SignUpProps } from "./components/sign-up.tsx";
export { CreateTeam, type CreateTeamProps } from "./components/teams/create-team.tsx";
export { TeamInvitation } from "./components/teams/team-invitation.tsx";
export { TeamSettings, type TeamSettingsProps } from "./components/teams/team-settings.tsx";
export { SelectedTeamSwitcher, type SelectedTeamSwitcherProps } from "./components/teams/team-switcher.tsx";
export { UserButton } from "./components/user-button.tsx";
export { type GatehouseTheme, useStrings } from "./context.ts";
export {
  type PaymentsHookOptions,
  type UseUserOptions,
  useApiKeys,
  useContactChannels,
  useGatehouseApp,
  useItem,
  useNotificationCategories,
  usePermission,
  usePermissions,
  useProducts,
  useProject,
  useSessions,
  useTeamApiKeys,
  useTeamInvitations,
  useTeamMembers,
  useTeams,
  useUser,
} from "./hooks.ts";
export type {
  NotificationCategory,
  TeamInvitation as TeamInvitationItem,
  TeamUser,
} from "./internal/caches.ts";
export { navigate, useLocation } from "./internal/router.ts";
export { GatehouseProvider, type GatehouseProviderProps, injectStyles } from "./provider.tsx";
export { defaultStrings, type GatehouseStrings } from "./strings.ts";
export { GATEHOUSE_CSS, gatehouseTokensCss } from "./styles.ts";
