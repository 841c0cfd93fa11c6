import type { AnyRoute } from "../http/route.ts";
import type { PasswordChangedHook, UserCreatedHook } from "./hooks.ts";

/**
 * A feature as the server wires it: its routes, and the hooks it runs in other features' work. features/routes.ts
 * lists every feature; the app mounts their routes and hands their hooks to the services that run them (through
 * `AppDeps.hooks`), so nothing is registered by importing a module.
 */
export type Feature = {
  id: string;
  routes: readonly AnyRoute[];
  hooks?: { userCreated?: UserCreatedHook; passwordChanged?: PasswordChangedHook };
};
