import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, isEncryptedSecret, SecretDecryptionError } from "./encryption.ts";

const key = { masterSecret: "test-master-secret-0123456789abcdefghij", purpose: "smtp-password" };

/** Replaces the character at `index` with a different base64url character. */
function flipChar(value: string, index: number): string {
  const replacement = value[index] === "A" ? "B" : "A";
  return value.slice(0, index) + replacement + value.slice(index + 1);
}

function decryptError(value: string, withKey = key): SecretDecryptionError {
  try {
    decryptSecret(value, withKey);
  } catch (error) {
    expect(error).toBeInstanceOf(SecretDecryptionError);
    return error as SecretDecryptionError;
  }
  throw new Error("decryptSecret did not throw");
}

describe("encryptSecret / decryptSecret", () => {
  it("round-trips text, including empty and non-ASCII strings", () => {
    for (const plaintext of ["hunter2", "", "pässwörd 🔑", "x".repeat(5000)]) {
      expect(decryptSecret(encryptSecret(plaintext, key), key)).toBe(plaintext);
    }
  });

  it("writes v1.<12-byte iv>.<ciphertext+16-byte tag> in base64url", () => {
    const value = encryptSecret("hunter2", key);
    const [version, iv, data] = value.split(".");
    expect(version).toBe("v1");
    expect(Buffer.from(iv!, "base64url")).toHaveLength(12);
    expect(Buffer.from(data!, "base64url")).toHaveLength("hunter2".length + 16);
    expect(value).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(isEncryptedSecret(value)).toBe(true);
    expect(isEncryptedSecret("hunter2")).toBe(false);
  });

  it("uses a fresh IV every time", () => {
    expect(encryptSecret("same", key)).not.toBe(encryptSecret("same", key));
  });

  it("detects tampering with the ciphertext, the tag or the IV", () => {
    const value = encryptSecret("a fairly long secret value", key);
    const dataStart = value.lastIndexOf(".") + 1;
    for (const index of [dataStart, dataStart + 5, value.length - 3, 4]) {
      expect(decryptError(flipChar(value, index)).message).toMatch(/failed authentication/);
    }
  });

  it("detects truncation", () => {
    const value = encryptSecret("secret", key);
    expect(decryptError(value.slice(0, -4)).message).toMatch(/failed authentication|truncated|canonical/);
    expect(decryptError(value.slice(0, value.lastIndexOf(".") + 4)).message).toMatch(/truncated/);
  });

  it("fails with another master secret or purpose", () => {
    const value = encryptSecret("secret", key);
    expect(
      decryptError(value, { ...key, masterSecret: "another-master-secret-0123456789abcdef" }).message,
    ).toMatch(/different master secret or purpose/);
    expect(decryptError(value, { ...key, purpose: "totp-secret" }).message).toMatch(/failed authentication/);
  });

  it("refuses values that are not in the format, with a clear message", () => {
    expect(decryptError("hunter2").message).toMatch(/Not an encrypted secret/);
    expect(decryptError("v2.AAAA.BBBB").message).toMatch(/Unsupported encrypted secret version "v2"/);
    expect(decryptError("v1.AA+A.BBBB").message).toMatch(/base64url/);
    expect(decryptError("v1..").message).toMatch(/base64url/);
    expect(decryptError("").message).toMatch(/Not an encrypted secret/);
  });

  it("refuses a non-canonical spelling of a valid value", () => {
    // 7 plaintext bytes + 16 tag bytes = 23 bytes = 31 base64url characters, the last one carrying 2 unused bits.
    const value = encryptSecret("hunter2", key);
    const last = value.at(-1)!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const index = alphabet.indexOf(last);
    const sameBytes = alphabet[index ^ 1]!;
    const respelled = value.slice(0, -1) + sameBytes;
    expect(Buffer.from(respelled.split(".")[2]!, "base64url")).toEqual(
      Buffer.from(value.split(".")[2]!, "base64url"),
    );
    expect(decryptError(respelled).message).toMatch(/canonical/);
  });

  it("requires a master secret and a purpose", () => {
    expect(() => encryptSecret("x", { masterSecret: "", purpose: "p" })).toThrow(TypeError);
    expect(() => encryptSecret("x", { masterSecret: "m", purpose: "" })).toThrow(TypeError);
  });
});
