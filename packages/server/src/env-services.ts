/**
 * The settings of the services outside Gatehouse that a server may be given (an AI endpoint, Stripe, an S3 bucket,
 * OAuth apps, a development OpenID issuer), read from the environment by env.ts's `readServerEnv`. A half-made
 * setting fails at start-up rather than at its first use; only an OAuth app's id without its secret is skipped.
 */

export type AiSettings = {
  /** Where `/chat/completions` lives, e.g. `https://api.openai.com/v1` or Ollama's `http://localhost:11434/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; local servers often need none. */
  apiKey: string | undefined;
  model: string;
};

export type StripeSettings = {
  secretKey: string;
  webhookSecret: string | undefined;
  apiUrl: string | undefined;
};

/** An S3-compatible bucket for uploaded images, from the reference's `STACK_S3_*` variables. */
export type S3Settings = {
  endpoint: string;
  bucket: string;
  region: string;
  /** Both or neither; without them the AWS SDK's default credential chain (environment, instance role) is used. */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  /** Where the stored objects are read from (a CDN, a public bucket domain); else `<endpoint>/<bucket>`. */
  publicEndpoint: string | undefined;
};

/** `GATEHOUSE_AI_*`: the base URL and the model together turn the AI helper on; a half-made setting fails at start. */
export function readAiSettings(env: NodeJS.ProcessEnv): AiSettings | undefined {
  const baseUrl = env.GATEHOUSE_AI_BASE_URL || undefined;
  const model = env.GATEHOUSE_AI_MODEL || undefined;
  const apiKey = env.GATEHOUSE_AI_API_KEY || undefined;
  if (!baseUrl && !model && !apiKey) return undefined;
  if (!baseUrl || !model) {
    throw new Error(
      "GATEHOUSE_AI_BASE_URL and GATEHOUSE_AI_MODEL must both be set to turn the AI helper on (GATEHOUSE_AI_API_KEY " +
        "when the endpoint needs one)",
    );
  }
  return { baseUrl: httpUrlSetting("GATEHOUSE_AI_BASE_URL", baseUrl), apiKey, model };
}

/** `STACK_STRIPE_*`: without a secret key, payments run in test mode only. */
export function readStripeSettings(env: NodeJS.ProcessEnv): StripeSettings | undefined {
  const secretKey = env.STACK_STRIPE_SECRET_KEY || undefined;
  const webhookSecret = env.STACK_STRIPE_WEBHOOK_SECRET || undefined;
  const apiUrl = env.GATEHOUSE_STRIPE_API_URL || undefined;
  if (!secretKey) {
    if (webhookSecret || apiUrl) {
      throw new Error(
        "STACK_STRIPE_WEBHOOK_SECRET and GATEHOUSE_STRIPE_API_URL need STACK_STRIPE_SECRET_KEY",
      );
    }
    return undefined;
  }
  return { secretKey, webhookSecret, apiUrl: apiUrl && httpUrlSetting("GATEHOUSE_STRIPE_API_URL", apiUrl) };
}

/**
 * The development OpenID issuer. Anyone who can sign in there can claim any verified address, which is what a test
 * issuer is for and what no server others reach may do: refused outside development.
 */
export function readDevOAuthIssuerUrl(env: NodeJS.ProcessEnv, isDevelopment: boolean): string | undefined {
  const name = env.GATEHOUSE_DEV_OAUTH_ISSUER_URL ? "GATEHOUSE_DEV_OAUTH_ISSUER_URL" : "STACK_OAUTH_MOCK_URL";
  const value = env[name] || undefined;
  if (value === undefined) return undefined;
  if (!isDevelopment) {
    throw new Error(
      `${name} is for development only: its issuer signs anyone in as any verified address. Unset it, or run ` +
        "without NODE_ENV=production.",
    );
  }
  // Kept as written: an issuer is compared exactly, trailing slash included.
  httpUrlSetting(name, value);
  return value;
}

/** `STACK_S3_*`: all unset means local files; a half-made setting fails at start-up rather than at the first upload. */
export function readS3Settings(env: NodeJS.ProcessEnv): S3Settings | undefined {
  const endpoint = env.STACK_S3_ENDPOINT || undefined;
  const bucket = env.STACK_S3_BUCKET || undefined;
  const accessKeyId = env.STACK_S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.STACK_S3_SECRET_ACCESS_KEY || undefined;
  const publicEndpoint = env.STACK_S3_PUBLIC_ENDPOINT || undefined;
  const any = endpoint || bucket || accessKeyId || secretAccessKey || publicEndpoint || env.STACK_S3_REGION;
  if (!any) return undefined;
  if (!endpoint || !bucket) {
    throw new Error(
      "STACK_S3_ENDPOINT and STACK_S3_BUCKET must both be set to store images in S3 (or neither)",
    );
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(bucket)) throw new Error(`Invalid STACK_S3_BUCKET "${bucket}"`);
  if (!accessKeyId !== !secretAccessKey) {
    throw new Error("STACK_S3_ACCESS_KEY_ID and STACK_S3_SECRET_ACCESS_KEY must be set together");
  }
  return {
    endpoint: httpUrlSetting("STACK_S3_ENDPOINT", endpoint),
    bucket,
    region: env.STACK_S3_REGION || "us-east-1",
    accessKeyId,
    secretAccessKey,
    publicEndpoint: publicEndpoint && httpUrlSetting("STACK_S3_PUBLIC_ENDPOINT", publicEndpoint),
  };
}

/** `GATEHOUSE_OAUTH_<PROVIDER>_CLIENT_ID` / `_CLIENT_SECRET` pairs; a provider needs both. */
export function readSharedOAuthCredentials(
  env: NodeJS.ProcessEnv,
): Record<string, { clientId: string; clientSecret: string }> {
  const credentials: Record<string, { clientId: string; clientSecret: string }> = {};
  for (const [name, clientId] of Object.entries(env)) {
    const match = /^GATEHOUSE_OAUTH_([A-Z0-9]+)_CLIENT_ID$/.exec(name);
    const clientSecret = match ? env[`GATEHOUSE_OAUTH_${match[1]}_CLIENT_SECRET`] : undefined;
    if (match && clientId && clientSecret) credentials[match[1]!.toLowerCase()] = { clientId, clientSecret };
  }
  return credentials;
}

function httpUrlSetting(name: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {}
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new Error(`Invalid ${name} "${value}": use an http(s) URL`);
  }
  return value.replace(/\/+$/, "");
}
