import type { AnyRoute } from "../../http/route.ts";
import { appleNativeCallbackRoute } from "./apple-native.ts";
import { authorizeRoute } from "./authorize.ts";
import { callbackRoutes } from "./callback.ts";
// Registers the authorization_code grant with the token endpoint.
import { connectedAccountRoutes } from "./connected-accounts.ts";
import { crossDomainAuthorizeRoute } from "./cross-domain.ts";
import { providerAccountRoutes } from "./provider-accounts.ts";

export const oauthRoutes: AnyRoute[] = [
  authorizeRoute,
  ...callbackRoutes,
  appleNativeCallbackRoute,
  crossDomainAuthorizeRoute,
  ...connectedAccountRoutes,
  ...providerAccountRoutes,
];
