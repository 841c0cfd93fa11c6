// Types of bundle-size.mjs, for src/bundle-size.test.ts.
export function signInProgram(pkg: string, className: string): string;
export function measureSignInBundle(
  pkg: string,
  className: string,
): Promise<{ raw: number; gzip: number; modules: { path: string; bytes: number }[] }>;
