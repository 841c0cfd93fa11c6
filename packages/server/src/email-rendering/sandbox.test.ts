/**
 * Hostile TSX: each attempt to escape or exhaust the sandbox must end as an EmailRenderError within the limits,
 * and the server's event loop must stay free while it runs.
 */
import { describe, expect, it } from "vitest";
import { EmailRenderError, renderEmail } from "./render.ts";
import type { SandboxLimits } from "./sandbox.ts";
import type { SandboxTenant } from "./sandbox-queue.ts";

const TENANT: SandboxTenant = { projectId: "sandbox-test", lane: "preview" };

const LIMITS: SandboxLimits = { timeMs: 1_500, memoryBytes: 32 * 1024 * 1024 };

async function failure(templateBody: string, imports = ""): Promise<string> {
  const templateSource = `${imports}\nexport function EmailTemplate() {\n${templateBody}\n}\n`;
  const error = await renderEmail({ tenant: TENANT, templateSource, themeSource: null, limits: LIMITS }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EmailRenderError);
  return (error as Error).message;
}

describe("the email sandbox", () => {
  it("stops an infinite loop at the time limit", async () => {
    expect(await failure("while (true) {}")).toBe(
      "Render error: The render took longer than 1500 ms and was stopped.",
    );
  });

  it("stops a huge allocation at the memory limit", async () => {
    expect(await failure("return new Array(200_000_000).fill(1);")).toBe(
      "Render error: The render used more than 32 MB of memory and was stopped.",
    );
  });

  it("stops runaway recursion", async () => {
    expect(await failure("const f = (n) => f(n + 1) + 1; return f(0);")).toContain("too much recursion");
  });

  it("has no process, require, fetch or timers that run", async () => {
    expect(await failure("return process.env.HOME;")).toBe(
      "Render error: ReferenceError: 'process' is not defined (at template.tsx:3:8)",
    );
    expect(await failure("return globalThis.require('fs');")).toContain("not a function");
    expect(await failure("return fetch('http://127.0.0.1:1/');")).toMatch(
      /^Render error: ReferenceError: 'fetch' is not defined/,
    );
    expect(await failure("return new XMLHttpRequest();")).toContain("'XMLHttpRequest' is not defined");
  });

  it("refuses imports of Node modules and files at compile time", async () => {
    for (const specifier of ["fs", "node:child_process", "./secrets", "/etc/passwd", "http"]) {
      const message = await failure("return null;", `import * as m from "${specifier}"; console.log(m);`);
      expect(message).toContain(`Cannot import "${specifier}"`);
      expect(message).toContain("template.tsx:1:");
    }
    const message = await failure("return require('fs');");
    expect(message).toContain('Cannot import "fs"');
  });

  it("gives constructor-chain escapes nothing but the interpreter's own globals", async () => {
    const constructorChain =
      "const g = (function () { return this; }).constructor('return this')(); return g.process.mainModule;";
    expect(await failure(constructorChain)).toContain("cannot read property 'mainModule' of undefined");
    const dynamicImport = "return import('fs');";
    expect(await failure(dynamicImport)).toMatch(/Cannot import "fs"/);
    const globals = `const names = Object.getOwnPropertyNames(globalThis).filter((n) => /process|require|fetch|Deno|Bun|module|std|os/.test(n)); throw new Error("globals:" + names.join(","));`;
    expect(await failure(globals)).toMatch(/^Render error: Error: globals: \(at template/);
  });

  it("keeps the event loop free while a hostile render runs", async () => {
    let settled = false;
    const hostile = renderEmail({
      tenant: TENANT,
      templateSource: "export function EmailTemplate() { while (true) {} }",
      themeSource: null,
      limits: { timeMs: 3_000, memoryBytes: LIMITS.memoryBytes },
    }).finally(() => {
      settled = true;
    });
    // Timers fire on schedule while the render spins: the loop runs on a worker thread, not this one.
    const ticks: number[] = [];
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        ticks.push(Date.now());
        if (ticks.length === 5) {
          clearInterval(timer);
          resolve();
        }
      }, 20);
    });
    expect(settled).toBe(false);
    await expect(hostile).rejects.toThrow("took longer than 3000 ms");
  });
});
