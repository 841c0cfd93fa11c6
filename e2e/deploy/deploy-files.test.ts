import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { DEFAULT_SHUTDOWN_TIMEOUT_MS } from "../../packages/server/src/env.ts";
import { createTestServer, type TestServer } from "../../packages/server/src/testing/harness.ts";

/**
 * The container and cluster files in deploy/ cannot be started here (no container runtime on these machines), so
 * this checks what can go wrong in them without one: each YAML file parses, and what they name exists. Commands are
 * the bin's, probe paths answer on a real server, environment variables are ones the server reads, references
 * between services, Secrets, labels and ports resolve, and the scripts the Dockerfile runs are there and executable
 * (e2e/packages/server-package.test.ts runs those scripts).
 */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DEPLOY = join(ROOT, "deploy");
const SERVER_PORT = 8102;
const GATEHOUSE_IMAGE = /^gatehouse:/;

type Yaml = Record<string, any>;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Every document of a YAML file; a syntax error fails with the file's name. */
function readYaml(path: string): Yaml[] {
  const documents = parseAllDocuments(readFileSync(path, "utf8"), { merge: true });
  if (!Array.isArray(documents)) throw new Error(`${path}: not a YAML stream`);
  return documents.map((document) => {
    if (document.errors.length > 0)
      throw new Error(`${relative(ROOT, path)}: ${document.errors[0]!.message}`);
    return document.toJS() as Yaml;
  });
}

/** The commands `gatehouse-server --help` lists: what an image's arguments may name. */
function binCommands(): string[] {
  const help = execFileSync(
    process.execPath,
    [join(ROOT, "packages/server/bin/gatehouse-server.js"), "--help"],
    {
      encoding: "utf8",
    },
  );
  const section = help.split(/\n\s*\n/).find((part) => part.startsWith("Commands:"));
  if (!section) throw new Error(`no Commands section in:\n${help}`);
  return [...section.matchAll(/^ {2}(\S+)/gm)].map((match) => match[1]!);
}

/** Environment variables the server reads: `env.NAME` and quoted names in its (non-test) sources. */
function variablesTheServerReads(): Set<string> {
  const names = new Set<string>();
  for (const file of filesUnder(join(ROOT, "packages/server/src"))) {
    if (!/\.(ts|mjs)$/.test(file) || /\.test\.|\/testing\//.test(file)) continue;
    const code = readFileSync(file, "utf8");
    for (const match of code.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)) names.add(match[1]!);
    for (const match of code.matchAll(/["'`]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)["'`]/g)) names.add(match[1]!);
  }
  return names;
}

const yamlFiles = filesUnder(DEPLOY).filter((path) => /\.ya?ml$/.test(path));
const compose = readYaml(join(DEPLOY, "compose.yaml"))[0]!;
const manifests = yamlFiles
  .filter((path) => path.startsWith(join(DEPLOY, "kubernetes")))
  .flatMap((path) => readYaml(path).map((manifest) => ({ file: relative(ROOT, path), manifest })));
const ofKind = (kind: string) => manifests.filter(({ manifest }) => manifest.kind === kind);
const dockerfile = readFileSync(join(DEPLOY, "Dockerfile"), "utf8");
const serverManifest = JSON.parse(readFileSync(join(ROOT, "packages/server/package.json"), "utf8")) as {
  bin: Record<string, string>;
};

const gatehouseServices = Object.entries(compose.services as Record<string, Yaml>).filter(
  ([, service]) => service.build?.dockerfile === "deploy/Dockerfile",
);
const gatehouseContainers = manifests.flatMap(({ file, manifest }) => {
  const pod = manifest.spec?.template?.spec;
  return ((pod?.containers ?? []) as Yaml[])
    .filter((container) => GATEHOUSE_IMAGE.test(container.image))
    .map((container) => ({ file, manifest, container }));
});

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe("deploy/", () => {
  it("holds YAML that parses, with the compose file and the Kubernetes manifests in it", () => {
    expect(yamlFiles.map((path) => relative(ROOT, path))).toContain("deploy/compose.yaml");
    expect(manifests.length).toBeGreaterThan(0);
    for (const { file, manifest } of manifests) {
      expect(manifest.apiVersion, file).toBeTypeOf("string");
      expect(manifest.kind, file).toBeTypeOf("string");
      expect(manifest.metadata?.name, file).toBeTypeOf("string");
    }
    expect(gatehouseServices.map(([name]) => name).sort()).toEqual(["gatehouse-1", "gatehouse-2", "migrate"]);
    expect(gatehouseContainers.length).toBeGreaterThanOrEqual(2);
  });

  it("starts the image's entrypoint, the package's bin, with commands it has", () => {
    const bin = Object.keys(serverManifest.bin);
    expect(bin).toEqual(["gatehouse-server"]);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["gatehouse-server"\]$/m);
    const commands = binCommands();
    expect(commands).toEqual(expect.arrayContaining(["serve", "migrate"]));
    for (const [name, service] of gatehouseServices) {
      if (service.command !== undefined) expect(commands, name).toContain(service.command[0]);
    }
    expect(compose.services.migrate.command).toEqual(["migrate"]);
    for (const { file, container } of gatehouseContainers) {
      // `command` would replace the entrypoint; arguments go to gatehouse-server.
      expect(container.command, file).toBeUndefined();
      if (container.args !== undefined) expect(commands, file).toContain(container.args[0]);
    }
    const job = ofKind("Job").find(({ manifest }) => manifest.metadata.name === "gatehouse-migrate");
    expect(job?.manifest.spec.template.spec.containers[0].args).toEqual(["migrate"]);
  });

  it("sets only environment variables the server reads", () => {
    const known = variablesTheServerReads();
    // The checker itself must see the variables every deployment sets.
    for (const name of ["NODE_ENV", "PORT", "DATABASE_URL", "GATEHOUSE_SECRET", "GATEHOUSE_BASE_URL"]) {
      expect(known, name).toContain(name);
    }
    const used: { where: string; name: string }[] = [];
    for (const [service, definition] of gatehouseServices) {
      for (const name of Object.keys(definition.environment ?? {})) used.push({ where: service, name });
    }
    const configData = new Map<string, string[]>();
    for (const { manifest } of [...ofKind("ConfigMap"), ...ofKind("Secret")]) {
      configData.set(
        `${manifest.kind}/${manifest.metadata.name}`,
        Object.keys(manifest.data ?? manifest.stringData ?? {}),
      );
    }
    for (const { file, container } of gatehouseContainers) {
      for (const variable of (container.env ?? []) as Yaml[]) used.push({ where: file, name: variable.name });
      for (const source of (container.envFrom ?? []) as Yaml[]) {
        const key = source.configMapRef
          ? `ConfigMap/${source.configMapRef.name}`
          : `Secret/${source.secretRef.name}`;
        const keys = configData.get(key);
        expect(keys, `${file}: envFrom ${key}`).toBeDefined();
        for (const name of keys!) used.push({ where: `${file} via ${key}`, name });
      }
    }
    for (const line of dockerfile.split("\n").filter((text) => /^ENV |^\s+[A-Z_]+=/.test(text))) {
      for (const match of line.matchAll(/([A-Z][A-Z0-9_]*)=/g)) {
        if (match[1] !== "PATH") used.push({ where: "deploy/Dockerfile", name: match[1]! });
      }
    }
    expect(used.length).toBeGreaterThan(10);
    expect(used.filter(({ name }) => !known.has(name))).toEqual([]);
  });

  it("probes paths the server answers itself", async () => {
    const probes = new Set<string>();
    for (const { container } of gatehouseContainers) {
      for (const probe of ["startupProbe", "livenessProbe", "readinessProbe"]) {
        const path = container[probe]?.httpGet?.path;
        if (path !== undefined) probes.add(path);
      }
    }
    const caddyfile = readFileSync(join(DEPLOY, "Caddyfile"), "utf8");
    const caddyProbe = /^\s*health_uri (\S+)$/m.exec(caddyfile)?.[1];
    expect(caddyProbe).toBe("/ready");
    probes.add(caddyProbe!);
    const healthcheck = /^HEALTHCHECK [\s\S]*?(\/health)\b/m.exec(dockerfile)?.[1];
    expect(healthcheck).toBe("/health");
    probes.add(healthcheck!);
    expect([...probes].sort()).toEqual(["/health", "/ready"]);
    for (const path of probes) {
      // The dashboard answers any other GET with its page and a 200: a probe of a path the server lacks would
      // pass. This test server runs no background workers, so /ready says 503 here; the installed package answers
      // 200 on both (e2e/packages/server-package.test.ts).
      const answer = await server.request(path);
      expect(answer.headers.get("content-type"), path).toContain("application/json");
      expect(answer.body, path).toHaveProperty("status");
    }
    expect((await server.request("/health")).status).toBe(200);
    const deployment = ofKind("Deployment").find(({ manifest }) => manifest.metadata.name === "gatehouse");
    const container = deployment!.manifest.spec.template.spec.containers[0];
    expect(container.readinessProbe.httpGet.path).toBe("/ready");
    expect(container.livenessProbe.httpGet.path).toBe("/health");
  });

  it("wires the compose services, the proxy and the database URLs to each other", () => {
    const services = compose.services as Record<string, Yaml>;
    for (const [name, service] of Object.entries(services)) {
      const dependencies = Array.isArray(service.depends_on)
        ? service.depends_on
        : Object.keys(service.depends_on ?? {});
      for (const dependency of dependencies) expect(Object.keys(services), name).toContain(dependency);
      for (const volume of (service.volumes ?? []) as string[]) {
        const source = volume.split(":")[0]!;
        if (source.startsWith(".")) expect(statSync(join(DEPLOY, source)).isFile(), source).toBe(true);
        else expect(Object.keys(compose.volumes ?? {}), `${name}: ${volume}`).toContain(source);
      }
    }
    for (const [name, service] of gatehouseServices) {
      expect(join(DEPLOY, service.build.context, service.build.dockerfile)).toBe(join(DEPLOY, "Dockerfile"));
      const environment = service.environment as Record<string, string>;
      expect(new URL(environment.DATABASE_URL!).host, name).toBe("pgbouncer:5432");
      expect(new URL(environment.GATEHOUSE_DATABASE_DIRECT_URL!).host, name).toBe("postgres:5432");
      expect(environment.GATEHOUSE_DATABASE_POOLING, name).toBe("transaction");
      expect(environment.GATEHOUSE_MIGRATE_ON_START, name).toBe("false");
    }
    for (const instance of ["gatehouse-1", "gatehouse-2"]) {
      expect(services[instance]!.depends_on.migrate.condition).toBe("service_completed_successfully");
    }
    expect(services.pgbouncer!.environment.POOL_MODE).toBe("transaction");
    const upstreams = /^reverse_proxy (.+) \{$/m.exec(readFileSync(join(DEPLOY, "Caddyfile"), "utf8"))?.[1];
    expect(upstreams?.split(" ")).toEqual([`gatehouse-1:${SERVER_PORT}`, `gatehouse-2:${SERVER_PORT}`]);
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${SERVER_PORT}$`, "m"));
    expect(dockerfile).toMatch(new RegExp(`PORT=${SERVER_PORT}\\b`));
  });

  it("resolves the Kubernetes references: Secrets and their keys, labels, ports, rollout and drain", () => {
    const secrets = new Map(
      ofKind("Secret").map(({ manifest }) => [
        manifest.metadata.name,
        Object.keys(manifest.stringData ?? {}),
      ]),
    );
    for (const { file, manifest } of manifests) {
      for (const container of (manifest.spec?.template?.spec?.containers ?? []) as Yaml[]) {
        const portNames = ((container.ports ?? []) as Yaml[]).map((port) => port.name);
        for (const variable of (container.env ?? []) as Yaml[]) {
          const reference = variable.valueFrom?.secretKeyRef;
          if (reference)
            expect(secrets.get(reference.name), `${file}: ${variable.name}`).toContain(reference.key);
        }
        for (const probe of ["startupProbe", "livenessProbe", "readinessProbe"]) {
          const port = container[probe]?.httpGet?.port ?? container[probe]?.tcpSocket?.port;
          if (typeof port === "string") expect(portNames, `${file}: ${probe}`).toContain(port);
        }
      }
    }
    for (const { container } of gatehouseContainers) {
      if (container.ports) expect(container.ports).toEqual([{ name: "http", containerPort: SERVER_PORT }]);
    }

    const podLabels = (name: string) =>
      ofKind("Deployment").find(({ manifest }) => manifest.metadata.name === name)!.manifest.spec.template
        .metadata.labels as Record<string, string>;
    const deploymentsByService: Record<string, string> = {
      gatehouse: "gatehouse",
      "gatehouse-pgbouncer": "gatehouse-pgbouncer",
    };
    for (const { manifest } of ofKind("Service")) {
      const deployment = deploymentsByService[manifest.metadata.name];
      expect(deployment, manifest.metadata.name).toBeDefined();
      expect(podLabels(deployment!)).toMatchObject(manifest.spec.selector);
      const container = ofKind("Deployment").find(({ manifest: d }) => d.metadata.name === deployment)!
        .manifest.spec.template.spec.containers[0];
      for (const port of manifest.spec.ports as Yaml[]) {
        expect((container.ports as Yaml[]).map((p) => p.name)).toContain(port.targetPort);
      }
    }
    // The app's Service must not pick up the pooler's pods or the migration Job's.
    const appSelector = ofKind("Service").find(({ manifest }) => manifest.metadata.name === "gatehouse")!
      .manifest.spec.selector;
    expect(podLabels("gatehouse-pgbouncer")).not.toMatchObject(appSelector);
    const [budget] = ofKind("PodDisruptionBudget");
    expect(podLabels("gatehouse")).toMatchObject(budget!.manifest.spec.selector.matchLabels);

    const deployment = ofKind("Deployment").find(
      ({ manifest }) => manifest.metadata.name === "gatehouse",
    )!.manifest;
    expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
    expect(deployment.spec.selector.matchLabels).toEqual(podLabels("gatehouse"));
    // Kubernetes kills the pod when the grace period ends: the server's own drain must be over by then.
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(
      DEFAULT_SHUTDOWN_TIMEOUT_MS,
    );
    for (const { container } of gatehouseContainers) {
      expect(container.resources?.requests, container.name).toBeDefined();
      expect(container.resources?.limits, container.name).toBeDefined();
    }
  });

  it("runs scripts in the Dockerfile that exist and are executable", () => {
    const scripts = [...dockerfile.matchAll(/deploy\/scripts\/[\w.-]+/g)].map((match) => match[0]);
    expect(new Set(scripts)).toEqual(
      new Set(["deploy/scripts/build-release.sh", "deploy/scripts/install-release.sh"]),
    );
    for (const script of new Set(scripts)) {
      const mode = statSync(join(ROOT, script)).mode;
      expect(mode & 0o111, `${script} is executable`).not.toBe(0);
    }
    // Each RUN does its work through one of them, apart from the workspace install and making the data folder.
    const runs = dockerfile
      .replace(/\\\n/g, " ")
      .split("\n")
      .filter((line) => line.startsWith("RUN "));
    for (const run of runs) {
      expect(run).toMatch(
        /deploy\/scripts\/|\/install-release\.sh |npm install --no-audit --no-fund$|^RUN mkdir /,
      );
    }
    // The build context keeps what the scripts need.
    const ignored = readFileSync(join(DEPLOY, "Dockerfile.dockerignore"), "utf8")
      .split("\n")
      .filter((line) => line && !line.startsWith("#"));
    for (const pattern of ignored) {
      expect(["deploy", "deploy/scripts", "packages", "scripts", "apps"]).not.toContain(pattern);
    }
  });
});
