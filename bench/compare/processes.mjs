// Server processes as a deployment runs them: one node process each, started here directly (not through npm), so
// its pid is the server's own and its memory can be read from /proc.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { performance } from "node:perf_hooks";

/** The benches' copy of packages/server/src/testing/ports.ts (plain Node runs these files, and cannot import TypeScript). */
export async function freePort() {
  const probe = net.createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Resident memory of one process in MiB. */
export function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

function healthy(port) {
  return new Promise((resolve) => {
    const request = http.get({ host: "127.0.0.1", port, path: "/health", agent: false }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode === 200));
    });
    request.on("error", () => resolve(false));
  });
}

/**
 * Starts `node <args>` and waits for `/health` to answer 200: the time that takes is the start time, and the
 * memory at that moment is the memory at ready. Output is kept (the last lines) to explain a server that died.
 */
export async function startServer({ args, env, port, cwd }) {
  const began = performance.now();
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const tail = [];
  const keep = (chunk) => {
    tail.push(...chunk.toString("utf8").split("\n"));
    tail.splice(0, Math.max(0, tail.length - 40));
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const output = () => tail.join("\n");
  while (!(await healthy(port))) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the server exited before answering /health:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const readySeconds = (performance.now() - began) / 1000;
  return {
    pid: child.pid,
    readySeconds,
    rssAtReady: rssMiB(child.pid),
    rss: () => rssMiB(child.pid),
    output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
