/** The shape of `gatehouse.config.ts` (`export default {...} satisfies GatehouseConfig`). */

/** A secret read from the environment when `gatehouse config push` runs. */
export type EnvSecret = { $env: string };

export type ConfigValue =
  | string
  | number
  | boolean
  | null
  | EnvSecret
  | ConfigValue[]
  | { [key: string]: ConfigValue };

/**
 * The project's config override: nested objects or dot-notation keys (`"auth.password.allowSignIn": true`), as
 * the dashboard and `PATCH /internal/config/override` take them.
 */
export type GatehouseConfig = { [key: string]: ConfigValue };
