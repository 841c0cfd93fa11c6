import { openApiRoutes } from "../http/openapi.ts";
import type { AnyRoute } from "../http/route.ts";
import { analyticsRoutes } from "./activity/analytics-routes.ts";
import { rewriteTemplateRoutes } from "./ai/rewrite-template.ts";
import { aiRoutes } from "./ai/routes.ts";
import { anonymousRoutes } from "./auth-anonymous/routes.ts";
import { mfaRoutes } from "./auth-mfa/routes.ts";
import { otpRoutes } from "./auth-otp/routes.ts";
import { passkeyRoutes } from "./auth-passkey/routes.ts";
import { passwordRoutes } from "./auth-password/routes.ts";
import { cliAuthRoutes } from "./cli-auth/routes.ts";
import { contactChannelRoutes } from "./contact-channels/routes.ts";
import { dataVaultRoutes } from "./data-vault/routes.ts";
import { emailDraftRoutes } from "./email-drafts/routes.ts";
import { emailTemplateRoutes } from "./email-templates/routes.ts";
import { emailCronRoutes } from "./emails/cron-routes.ts";
import { emailRoutes } from "./emails/routes.ts";
import type { Feature } from "./feature.ts";
import type { FeatureHooks } from "./hooks.ts";
import { metricsRoutes } from "./metrics/routes.ts";
import { notificationRoutes } from "./notifications/routes.ts";
import { attachRequestedProviderAccounts } from "./oauth/accounts.ts";
import { oauthRoutes } from "./oauth/routes.ts";
import { tokenRoutes } from "./oauth/token-route.ts";
import { paymentAdminRoutes } from "./payments/admin-routes.ts";
import { cardRoutes } from "./payments/card-routes.ts";
import { methodConfigRoutes } from "./payments/method-configs.ts";
import { purchaseRoutes } from "./payments/purchase-routes.ts";
import { refundRoutes } from "./payments/refunds.ts";
import { paymentCustomerRoutes } from "./payments/routes.ts";
import { answeringStripeFailures } from "./payments/stripe.ts";
import { stripeRoutes } from "./payments/stripe-routes.ts";
import { stripeWebhookRoutes } from "./payments/stripe-webhook.ts";
import { permissionRoutes } from "./permissions/routes.ts";
import { grantDefaultPermissionsToNewUser } from "./permissions/user-hooks.ts";
import { internalProjectRoutes } from "./project-admin/internal-projects-routes.ts";
import { projectRoutes } from "./project-admin/routes.ts";
import { configRoutes } from "./project-config/routes.ts";
import { projectKeyRoutes } from "./project-keys/routes.ts";
import { sessionRoutes } from "./sessions/routes.ts";
import { signOutEverywhereOnPasswordChange } from "./sessions/service.ts";
import { signUpRuleRoutes } from "./sign-up-rules/routes.ts";
import { systemRoutes } from "./system/routes.ts";
import { teamRoutes } from "./teams/routes.ts";
import { userApiKeyRoutes } from "./user-api-keys/routes.ts";
import { userImportRoutes } from "./users/import-routes.ts";
import { userRoutes } from "./users/routes.ts";
import { webhookRoutes } from "./webhooks/routes.ts";

/**
 * Every feature of the server, in one list: what each serves and what it hooks into. A new feature adds itself
 * here; the route-guard, bad-input and tenant-isolation tests then cover its routes.
 */
export const features: readonly Feature[] = [
  { id: "system", routes: systemRoutes },
  { id: "projects", routes: [...projectRoutes, ...internalProjectRoutes] },
  { id: "project-keys", routes: projectKeyRoutes },
  { id: "project-config", routes: configRoutes },
  { id: "sessions", routes: sessionRoutes, hooks: { passwordChanged: signOutEverywhereOnPasswordChange } },
  { id: "oauth-token", routes: tokenRoutes },
  // The import routes first: `/users/export` must not be read as `/users/:user_id`.
  { id: "users", routes: [...userImportRoutes, ...userRoutes] },
  { id: "auth-password", routes: passwordRoutes },
  { id: "auth-anonymous", routes: anonymousRoutes },
  { id: "auth-otp", routes: otpRoutes },
  { id: "auth-mfa", routes: mfaRoutes },
  { id: "auth-passkey", routes: passkeyRoutes },
  { id: "contact-channels", routes: contactChannelRoutes },
  { id: "emails", routes: [...emailRoutes, ...emailCronRoutes] },
  { id: "email-templates", routes: emailTemplateRoutes },
  { id: "email-drafts", routes: emailDraftRoutes },
  { id: "cli-auth", routes: cliAuthRoutes },
  { id: "teams", routes: teamRoutes },
  {
    id: "permissions",
    routes: permissionRoutes,
    hooks: { userCreated: grantDefaultPermissionsToNewUser },
  },
  { id: "user-api-keys", routes: userApiKeyRoutes },
  { id: "notifications", routes: notificationRoutes },
  { id: "oauth", routes: oauthRoutes, hooks: { userCreated: attachRequestedProviderAccounts } },
  { id: "analytics", routes: analyticsRoutes },
  { id: "metrics", routes: metricsRoutes },
  { id: "webhooks", routes: webhookRoutes },
  { id: "sign-up-rules", routes: signUpRuleRoutes },
  {
    id: "payments",
    routes: [
      ...[
        ...paymentCustomerRoutes,
        ...cardRoutes,
        ...purchaseRoutes,
        ...paymentAdminRoutes,
        ...stripeRoutes,
        ...methodConfigRoutes,
        ...refundRoutes,
      ].map(answeringStripeFailures),
      // A failed webhook must stay a 5xx of ours, logged as such: Stripe retries it.
      ...stripeWebhookRoutes,
    ],
  },
  { id: "ai", routes: [...aiRoutes, ...rewriteTemplateRoutes] },
  { id: "data-vault", routes: dataVaultRoutes },
];

/** Every API route of the server. */
export const featureRoutes: readonly AnyRoute[] = features.flatMap((feature) => feature.routes);

/** Every feature's hooks, for `AppDeps.hooks`. */
export const featureHooks: FeatureHooks = {
  userCreated: features.flatMap((feature) => (feature.hooks?.userCreated ? [feature.hooks.userCreated] : [])),
  passwordChanged: features.flatMap((feature) =>
    feature.hooks?.passwordChanged ? [feature.hooks.passwordChanged] : [],
  ),
};

/** What the app serves: the feature routes plus the OpenAPI document and docs page generated from them. */
export const apiRoutes: readonly AnyRoute[] = [...featureRoutes, ...openApiRoutes(featureRoutes)];
