import { Suspense } from "react";
import { useStrings } from "../context.ts";
import { useGatehouseApp, useUser } from "../hooks.ts";
import { LogOutIcon, SettingsIcon } from "../internal/icons.tsx";
import { Menu, MenuItem } from "../internal/menu.tsx";
import { appNavigate } from "../internal/router.ts";
import { Avatar, Button, Root } from "../internal/ui.tsx";

/** The signed-in user's avatar with a menu (account settings, sign out); a sign-in button when signed out. */
export function UserButton({ showName }: { showName?: boolean }) {
  return (
    <Root className="gh-inline">
      <Suspense fallback={<span className="gh-avatar" aria-hidden="true" data-gh-pending="" />}>
        <UserButtonInner showName={showName ?? false} />
      </Suspense>
    </Root>
  );
}

function UserButtonInner({ showName }: { showName: boolean }) {
  const s = useStrings();
  const app = useGatehouseApp();
  const user = useUser({ includeRestricted: true });
  if (!user) {
    return (
      <Button small onClick={() => app.redirectToSignIn()}>
        {s.signIn}
      </Button>
    );
  }
  const name = user.displayName ?? user.primaryEmail ?? "";
  return (
    <Menu
      label={s.userMenu}
      trigger={
        <>
          <Avatar name={name} imageUrl={user.profileImageUrl} />
          {showName ? <span style={{ fontWeight: 550, paddingRight: 8 }}>{name}</span> : null}
        </>
      }
    >
      {(close) => (
        <>
          <div className="gh-menu-header">
            <Avatar name={name} imageUrl={user.profileImageUrl} />
            <div className="gh-menu-header-text">
              <strong>{user.displayName ?? user.primaryEmail}</strong>
              {user.displayName && user.primaryEmail ? <span>{user.primaryEmail}</span> : null}
            </div>
          </div>
          <MenuItem
            onSelect={() => {
              close();
              appNavigate(app, app.urls.accountSettings);
            }}
          >
            <SettingsIcon />
            {s.accountSettings}
          </MenuItem>
          <MenuItem
            onSelect={() => {
              close();
              void app.signOut();
            }}
          >
            <LogOutIcon />
            {s.signOut}
          </MenuItem>
        </>
      )}
    </Menu>
  );
}
