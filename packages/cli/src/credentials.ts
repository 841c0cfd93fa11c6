/**
 * Where `gatehouse login` keeps its refresh tokens: `credentials.json` in the user's config directory
 * (`$GATEHOUSE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/gatehouse`, `%APPDATA%\gatehouse` on Windows, or
 * `~/.config/gatehouse`), readable by the user only (mode 0600, in a 0700 folder). One entry per server URL.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export type StoredLogin = { refreshToken: string; userId: string; email: string | null; savedAt: string };
type CredentialsFile = { logins: Record<string, StoredLogin> };

export function configDir(): string {
  if (process.env.GATEHOUSE_CONFIG_DIR) return process.env.GATEHOUSE_CONFIG_DIR;
  if (process.env.XDG_CONFIG_HOME) return join(process.env.XDG_CONFIG_HOME, "gatehouse");
  if (process.platform === "win32" && process.env.APPDATA) return join(process.env.APPDATA, "gatehouse");
  return join(homedir(), ".config", "gatehouse");
}

export const credentialsPath = () => join(configDir(), "credentials.json");

function read(): CredentialsFile {
  const path = credentialsPath();
  if (!existsSync(path)) return { logins: {} };
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as CredentialsFile;
    return parsed && typeof parsed.logins === "object" ? parsed : { logins: {} };
  } catch {
    return { logins: {} };
  }
}

function write(file: CredentialsFile): void {
  const dir = configDir();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = credentialsPath();
  // Written whole to a private temporary file, then moved over: never a moment with a half file or loose mode.
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

export function loadLogin(apiUrl: string): StoredLogin | null {
  return read().logins[apiUrl] ?? null;
}

export function saveLogin(apiUrl: string, login: StoredLogin): void {
  const file = read();
  file.logins[apiUrl] = login;
  write(file);
}

export function forgetLogin(apiUrl: string): boolean {
  const file = read();
  if (!file.logins[apiUrl]) return false;
  delete file.logins[apiUrl];
  if (Object.keys(file.logins).length === 0) rmSync(credentialsPath(), { force: true });
  else write(file);
  return true;
}
