#!/usr/bin/env node
// `pnpm k8s:check`: renders every overlay of deploy/kubernetes (and each with the optional
// ServiceMonitor component) with `kubectl kustomize`, then checks every object three ways:
//   1. against the Kubernetes schemas: kubernetes-models' validators (types, required fields,
//      formats) and, for fields nobody knows (a typo such as `readinesProbe`), TypeScript's excess
//      property check of each object against the same package's interfaces;
//   2. the conduit.json each ConfigMap carries, through the CLI's own config parsing;
//   3. what docs/deploy.md promises of the Deployment (probes, drain timing, resources, security).
// kubernetes-models and yaml are installed from npm into a scratch folder (never workspace
// dependencies). Fails on the first overlay that renders nothing or any error anywhere.
//
// Also the one-host files: deploy/compose.yaml with its conduit.json, and the systemd unit.
//
// Usage: node --conditions=@conduit-ai/source --import tsx tools/scripts/k8s-check.mjs
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseGovernanceConfig } from "../../packages/governance/src/index.ts";
import { parseServeOptions } from "../../packages/cli/src/config-file.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const KUBERNETES = join(ROOT, "deploy/kubernetes");
// kubernetes-models 5.1 declares Node ≥ 22 in engines but runs on 20 (checked by this script's own run).
const TOOLS = { "kubernetes-models": "5.1.0", "@kubernetes-models/prometheus-operator": "6.0.0", yaml: "2.9.1" };
const failures = [];
let checks = 0;

function check(condition, what) {
  checks++;
  if (!condition) {
    failures.push(what);
    console.log(`FAIL ${what}`);
  }
}

/**
 * kubectl with a kustomize that reads `resources` folders, `labels`, `patches` and `components`:
 * kubectl ≥ 1.21 (kustomize ≥ 4). Debian bookworm's kubernetes-client is kubectl 1.20 with
 * kustomize 2.0.3, which predates all four; it is named, not silently used.
 */
function requireKubectl() {
  const version = spawnSync("kubectl", ["version", "--client", "-o", "json"], { encoding: "utf8" });
  if (version.error || version.status !== 0)
    throw new Error("kubectl is missing: apt-get install -y kubernetes-client (or the Kubernetes project's kubectl)");
  const { major, minor, gitVersion } = JSON.parse(version.stdout).clientVersion;
  if (Number(major) === 1 && Number.parseInt(minor, 10) < 21)
    throw new Error(
      `kubectl ${gitVersion} embeds kustomize 2, which cannot read these kustomizations: use kubectl ≥ 1.21 (the Kubernetes project's packages; Debian bookworm ships 1.20)`,
    );
  return gitVersion;
}

function kubectlKustomize(directory) {
  return execFileSync("kubectl", ["kustomize", directory], { encoding: "utf8" });
}

/** Installs the pinned tools once into node_modules/.cache (reused while the versions match). */
function installTools() {
  const folder = join(ROOT, "node_modules/.cache/conduit-k8s-check");
  const installed = Object.entries(TOOLS).every(([name, version]) => {
    const manifest = join(folder, "node_modules", name, "package.json");
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).version === version;
  });
  if (!installed) {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "conduit-k8s-check", private: true, type: "module" }));
    const specs = Object.entries(TOOLS).map(([name, version]) => `${name}@${version}`);
    console.log(`k8s-check: installing ${specs.join(" ")} into ${folder}`);
    execFileSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", "--engine-strict=false", ...specs], {
      cwd: folder,
      stdio: "inherit",
    });
  }
  return folder;
}

/** The module of a kind: core `v1` → kubernetes-models/v1/Kind; a group → its folder; the operator's CRDs from their package. */
function modelModule({ apiVersion, kind }) {
  if (apiVersion.startsWith("monitoring.coreos.com/")) return `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`;
  return `kubernetes-models/${apiVersion}/${kind}`;
}

/** The file of a model module (the packages export ESM only, so `require.resolve` cannot find them). */
function modelFile(folder, specifier) {
  const file = join(folder, "node_modules", `${specifier}.js`);
  if (!existsSync(file)) throw new Error(`no ${file}`);
  return pathToFileURL(file).href;
}

/**
 * What to render: each overlay, and each overlay with every optional component (a kustomization in
 * the scratch folder: kustomize takes only relative paths).
 */
function renderTargets(scratch) {
  const overlays = readdirSync(join(KUBERNETES, "overlays")).sort();
  const components = readdirSync(join(KUBERNETES, "components")).sort();
  const targets = overlays.map((name) => ({ name, directory: join(KUBERNETES, "overlays", name), overlay: name }));
  for (const overlay of overlays) {
    const directory = mkdtempSync(join(scratch, `render-${overlay}-`));
    const from = (path) => relative(directory, join(KUBERNETES, path));
    writeFileSync(
      join(directory, "kustomization.yaml"),
      [
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        "resources:",
        `  - ${from(`overlays/${overlay}`)}`,
        "components:",
        ...components.map((component) => `  - ${from(`components/${component}`)}`),
        "",
      ].join("\n"),
    );
    targets.push({ name: `${overlay} + ${components.join(", ")}`, directory, overlay, temporary: true });
  }
  return targets;
}

/** The conduit.json of a ConfigMap through the CLI's own parsing, with the Deployment's literal environment. */
function checkConduitConfig(target, configMap, container) {
  const text = configMap.data?.["conduit.json"];
  check(typeof text === "string", `${target}: ConfigMap ${configMap.metadata.name} holds conduit.json`);
  if (typeof text !== "string") return undefined;
  const folder = mkdtempSync(join(tmpdir(), "conduit-k8s-config-"));
  const file = join(folder, "conduit.json");
  writeFileSync(file, text);
  const env = Object.fromEntries(
    (container.env ?? []).filter((entry) => entry.value !== undefined).map((entry) => [entry.name, entry.value]),
  );
  try {
    const options = parseServeOptions(["--config", file], env);
    if (options.file.keys !== undefined) parseGovernanceConfig(options.file);
    return options;
  } catch (error) {
    check(false, `${target}: conduit.json is rejected by conduit serve: ${error.message.split("\n")[0]}`);
    return undefined;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const secretRef = (container, name) => container.env?.find((entry) => entry.name === name)?.valueFrom?.secretKeyRef;

/** What docs/deploy.md promises of the rendered Deployment. */
function checkDeployment(target, overlay, objects) {
  const byKind = (kind) => objects.filter((object) => object.kind === kind);
  const [deployment] = byKind("Deployment");
  check(byKind("Deployment").length === 1, `${target}: one Deployment`);
  if (!deployment) return;
  const pod = deployment.spec.template.spec;
  const container = pod.containers.find((item) => item.name === "conduit");
  check(Boolean(container), `${target}: a container named conduit`);
  if (!container) return;
  const podLabels = deployment.spec.template.metadata?.labels ?? {};
  const matches = (selector) =>
    Object.entries(selector ?? {}).every(([key, value]) => podLabels[key] === value) && Object.keys(selector ?? {}).length > 0;
  check(matches(deployment.spec.selector.matchLabels), `${target}: the Deployment's selector matches its pods`);

  check(container.readinessProbe?.httpGet?.path === "/ready", `${target}: readiness probe on /ready`);
  check(container.livenessProbe?.httpGet?.path === "/health", `${target}: liveness probe on /health`);
  check(container.startupProbe?.httpGet?.path === "/health", `${target}: startup probe on /health`);
  const ports = (container.ports ?? []).map((port) => port.containerPort);
  check(ports.includes(8080), `${target}: container port 8080`);

  const configMapName = pod.volumes?.find((volume) => volume.name === "config")?.configMap?.name;
  const configMount = container.volumeMounts?.find((mount) => mount.name === "config");
  check(configMount?.mountPath === "/etc/conduit" && configMount.readOnly === true, `${target}: config mounted read-only at /etc/conduit`);
  check(container.args?.join(" ").includes("--config /etc/conduit/conduit.json"), `${target}: serve reads /etc/conduit/conduit.json`);
  const configMap = byKind("ConfigMap").find((item) => item.metadata.name === configMapName);
  check(Boolean(configMap), `${target}: the config volume's ConfigMap ${configMapName} is rendered`);
  const options = configMap ? checkConduitConfig(target, configMap, container) : undefined;

  // The drain always finishes before the kubelet's SIGKILL.
  const preStopSeconds = Number(container.lifecycle?.preStop?.exec?.command?.at(-1) ?? Number.NaN);
  check(container.lifecycle?.preStop?.exec?.command?.[0] === "sleep" && preStopSeconds > 0, `${target}: a preStop pause`);
  const gracefulMs = options?.server.shutdown?.gracefulShutdownTimeoutMs ?? 30_000;
  const graceSeconds = pod.terminationGracePeriodSeconds ?? 30;
  check(
    graceSeconds * 1000 > preStopSeconds * 1000 + gracefulMs,
    `${target}: terminationGracePeriodSeconds ${graceSeconds} s > preStop ${preStopSeconds} s + gracefulShutdownTimeoutMs ${gracefulMs} ms`,
  );

  const resources = container.resources ?? {};
  check(
    Boolean(resources.requests?.cpu && resources.requests?.memory && resources.limits?.memory),
    `${target}: cpu and memory requests, a memory limit`,
  );
  const security = container.securityContext ?? {};
  check(pod.securityContext?.runAsNonRoot === true && pod.securityContext?.runAsUser === 10001, `${target}: runs as non-root uid 10001`);
  check(security.readOnlyRootFilesystem === true, `${target}: read-only root filesystem`);
  check(security.allowPrivilegeEscalation === false, `${target}: no privilege escalation`);
  check(security.capabilities?.drop?.includes("ALL"), `${target}: every capability dropped`);
  const tmp = pod.volumes?.find((volume) => volume.name === "tmp");
  check(
    Boolean(tmp?.emptyDir) && container.volumeMounts?.some((mount) => mount.name === "tmp" && mount.mountPath === "/tmp"),
    `${target}: /tmp is a writable emptyDir`,
  );
  for (const name of ["CONDUIT_ADMIN_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DATABASE_URL"])
    check(Boolean(secretRef(container, name)), `${target}: ${name} from a Secret`);

  const [service] = byKind("Service").filter((item) => item.spec.type !== "ExternalName");
  check(Boolean(service) && matches(service.spec.selector), `${target}: a Service selecting the pods`);
  const [policy] = byKind("NetworkPolicy");
  check(Boolean(policy) && matches(policy.spec.podSelector?.matchLabels), `${target}: a NetworkPolicy selecting only the pods`);

  if (overlay === "single") {
    check(deployment.spec.replicas === 1, `${target}: 1 replica`);
    check(byKind("HorizontalPodAutoscaler").length === 0, `${target}: no autoscaler (state lives in the process)`);
    check(
      options?.file.redis === undefined && !container.env?.some((entry) => entry.name.startsWith("REDIS_")),
      `${target}: embedded defaults (no Redis)`,
    );
  }
  if (overlay === "ha") {
    check(deployment.spec.replicas === 3, `${target}: 3 replicas`);
    const [autoscaler] = byKind("HorizontalPodAutoscaler");
    check(
      autoscaler?.spec.minReplicas === 3 && autoscaler.spec.metrics?.some((metric) => metric.resource?.name === "cpu"),
      `${target}: an autoscaler on CPU, at least 3 replicas`,
    );
    const [budget] = byKind("PodDisruptionBudget");
    check(Boolean(budget) && matches(budget.spec.selector?.matchLabels), `${target}: a PodDisruptionBudget selecting the pods`);
    check(secretRef(container, "DATABASE_URL")?.optional === false, `${target}: DATABASE_URL required`);
    const sentinels = container.env?.find((entry) => entry.name === "REDIS_SENTINELS")?.value ?? "";
    const external = byKind("Service")
      .filter((item) => item.spec.type === "ExternalName")
      .map((item) => item.metadata.name);
    check(
      sentinels.split(",").every((address) => external.includes(address.split(":")[0])),
      `${target}: REDIS_SENTINELS names the external service`,
    );
    check(options?.file.keys?.store === "redis", `${target}: virtual keys and budgets in Redis`);
  }
  if (target.includes("service-monitor")) {
    const [monitor] = byKind("ServiceMonitor");
    check(
      monitor?.spec.endpoints?.some((endpoint) => endpoint.path === "/api/metrics" && endpoint.port === "http"),
      `${target}: ServiceMonitor scrapes /api/metrics`,
    );
  }
}

/** The one-host files beside the manifests: deploy/compose.yaml (and its conduit.json) and the systemd unit. */
function checkOtherDeployFiles(YAML) {
  // `<<: *gateway` merge keys, as compose reads them.
  const compose = YAML.parse(readFileSync(join(ROOT, "deploy/compose.yaml"), "utf8"), { merge: true });
  const gateways = Object.entries(compose.services ?? {}).filter(([, service]) => service.build?.dockerfile === "Containerfile");
  check(gateways.length === 2, `compose.yaml: two gateways built from Containerfile (${gateways.map(([name]) => name).join(", ")})`);
  check(Boolean(compose.services?.redis) && Boolean(compose.services?.postgres), "compose.yaml: Redis and PostgreSQL");
  for (const [name, service] of gateways) {
    check(service.read_only === true && service.tmpfs?.includes("/tmp"), `compose.yaml ${name}: read-only root filesystem, tmpfs /tmp`);
    const mount = service.volumes?.find((volume) => volume.endsWith(":/etc/conduit/conduit.json:ro"));
    check(
      Boolean(mount) && service.command?.join(" ").includes("--config /etc/conduit/conduit.json"),
      `compose.yaml ${name}: conduit.json mounted and read`,
    );
    if (!mount) continue;
    const file = join(ROOT, "deploy", mount.split(":")[0]);
    try {
      const options = parseServeOptions(["--config", file], { REDIS_URL: "redis://redis:6379" });
      if (options.file.keys !== undefined) parseGovernanceConfig(options.file);
      const gracefulMs = options.server.shutdown?.gracefulShutdownTimeoutMs ?? 30_000;
      check(
        Number.parseInt(service.stop_grace_period, 10) * 1000 > gracefulMs,
        `compose.yaml ${name}: stop_grace_period ${service.stop_grace_period} > ${gracefulMs} ms`,
      );
    } catch (error) {
      check(false, `compose.yaml ${name}: ${file} is rejected by conduit serve: ${error.message.split("\n")[0]}`);
    }
  }
  const unit = readFileSync(join(ROOT, "deploy/systemd/conduit.service"), "utf8");
  const setting = (name) => new RegExp(`^${name}=(.*)$`, "m").exec(unit)?.[1];
  check(
    setting("KillSignal") === "SIGTERM" && Number(setting("TimeoutStopSec")) > 60,
    "conduit.service: SIGTERM, a stop timeout longer than the drain",
  );
  check(setting("ExecStart")?.includes("conduit serve") === true, "conduit.service: runs conduit serve");
  const verify = spawnSync("systemd-analyze", ["verify", join(ROOT, "deploy/systemd/conduit.service")], { encoding: "utf8" });
  if (!verify.error)
    check(verify.status === 0 && verify.stderr.trim() === "", `conduit.service: systemd-analyze verify ${verify.stderr.trim()}`);
}

async function main() {
  console.log(`k8s-check: kubectl ${requireKubectl()}`);
  const folder = installTools();
  const require = createRequire(join(folder, "package.json"));
  const YAML = await import(pathToFileURL(require.resolve("yaml")).href);
  const typeChecks = [];
  const imports = new Map();
  let objectCount = 0;
  for (const target of renderTargets(folder)) {
    let objects;
    try {
      objects = YAML.parseAllDocuments(kubectlKustomize(target.directory)).map((document) => document.toJS());
    } finally {
      if (target.temporary) rmSync(target.directory, { recursive: true, force: true });
    }
    check(objects.length > 0, `${target.name}: renders objects`);
    for (const object of objects) {
      const where = `${target.name}: ${object.kind}/${object.metadata?.name}`;
      const specifier = modelModule(object);
      let models;
      try {
        models = await import(modelFile(folder, specifier));
      } catch {
        check(false, `${where}: no schema for ${object.apiVersion} ${object.kind}`);
        continue;
      }
      try {
        new models[object.kind](object).validate();
        check(true, where);
      } catch (error) {
        check(false, `${where}: ${error.message}`);
      }
      if (!imports.has(specifier)) imports.set(specifier, `Model${imports.size}`);
      typeChecks.push({ where, type: `import("${specifier}").I${object.kind}`, object });
      objectCount++;
    }
    checkDeployment(target.name, target.overlay, objects);
  }
  checkOtherDeployFiles(YAML);
  // Unknown fields: the validators allow extra properties; TypeScript's excess property check does not.
  const chunks = typeChecks.map(
    ({ where, type, object }, index) => `// ${where}\nexport const object${index}: ${type} = ${JSON.stringify(object, null, 2)};\n`,
  );
  const firstLines = [];
  let line = 1;
  for (const chunk of chunks) {
    firstLines.push(line);
    line += chunk.split("\n").length;
  }
  const source = chunks.join("\n");
  /** Names the rendered object a TypeScript error line points into. */
  const objectAt = (errorLine) => typeChecks[firstLines.findLastIndex((first) => first <= errorLine)]?.where ?? "?";
  writeFileSync(join(folder, "rendered-objects.ts"), source);
  const compilerOptions = {
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    target: "es2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    types: [],
  };
  writeFileSync(join(folder, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["rendered-objects.ts"] }));
  const tsc = createRequire(join(ROOT, "package.json")).resolve("typescript/bin/tsc");
  const typed = spawnSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: folder, encoding: "utf8" });
  const typeErrors = `${typed.stdout}${typed.stderr}`
    .trim()
    .replace(/^rendered-objects\.ts\((\d+),\d+\): /gm, (_, errorLine) => `${objectAt(Number(errorLine))}: `);
  check(
    typed.status === 0,
    `no unknown or mistyped fields (TypeScript against kubernetes-models' interfaces)${typeErrors ? `:\n${typeErrors}` : ""}`,
  );

  console.log(`k8s-check: ${objectCount} objects rendered from deploy/kubernetes, ${checks} checks`);
  if (failures.length > 0) {
    console.error(`k8s-check: ${failures.length} failed`);
    process.exit(1);
  }
  console.log("k8s-check: every object valid against the Kubernetes schemas; the Deployment keeps docs/deploy.md's promises");
}

main().catch((error) => {
  console.error(`k8s-check failed: ${error.stack ?? error.message}`);
  process.exit(1);
});
