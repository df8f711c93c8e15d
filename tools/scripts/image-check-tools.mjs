// What `pnpm image:check` and the three-replica check share: a base image made from Debian
// packages (no container registry is reachable here), the image built from Containerfile with
// podman, and its entrypoint run from the image's own root filesystem (podman cannot `run` on these
// machines: cgroups). A process runs the way a container runtime would start it: the image's
// read-only root, a private /tmp, the config directory mounted at /etc/conduit, the image's user,
// environment, working directory, entrypoint and command — only no network namespace (loopback is
// shared with the checks' fakes, Redis and PostgreSQL).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The tag both checks build and run. */
export const IMAGE_TAG = "localhost/conduit:check";
const DEBIAN_MIRROR = process.env.DEBIAN_MIRROR || "http://deb.debian.org/debian";

/** Prints a line with the seconds since `since`. */
export function logger(name) {
  const started = Date.now();
  return (message) => console.log(`[${name} ${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${message}`);
}

/** Stops with the apt line when a tool is missing (CI installs them; nothing is installed behind your back). */
export function requireTools(tools) {
  const missing = tools.filter(({ command }) => spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status !== 0);
  if (missing.length === 0) return;
  const packages = [...new Set(missing.map((tool) => tool.package))].join(" ");
  throw new Error(`missing ${missing.map((tool) => tool.command).join(", ")}: apt-get install -y ${packages}`);
}

export const IMAGE_TOOLS = [
  { command: "podman", package: "podman" },
  { command: "buildah", package: "buildah" },
  { command: "debootstrap", package: "debootstrap" },
  { command: "unshare", package: "util-linux" },
  { command: "chroot", package: "coreutils" },
];

function run(command, args, options = {}) {
  return execFileSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"], ...options });
}

function podmanImageExists(tag) {
  return spawnSync("podman", ["image", "exists", tag]).status === 0;
}

/**
 * The base tagged for `BASE_IMAGE`: `debootstrap --variant=minbase bookworm`, trimmed as Debian's
 * slim images are (no apt lists or caches, docs, man pages or locales), plus this machine's Node 20
 * and its npm under /usr/local as in node:20-bookworm-slim. Cached as a tarball under the system
 * temp directory keyed by the Node version, and as the podman image itself.
 */
export function ensureBase(log) {
  const nodeVersion = process.version.slice(1);
  if (!nodeVersion.startsWith("20."))
    throw new Error(`the base needs Node 20 (the image's BASE_IMAGE is node:20); this is ${process.version}`);
  const tag = `localhost/conduit-base:node-${nodeVersion}`;
  if (podmanImageExists(tag)) {
    log(`base ${tag}: cached image`);
    return { tag, origin: "cached image" };
  }
  const cacheDirectory = join(tmpdir(), "conduit-image-base");
  const tarball = join(cacheDirectory, `bookworm-minbase-node-${nodeVersion}.tar`);
  let origin = "cached tarball";
  if (!existsSync(tarball)) {
    origin = "debootstrap";
    mkdirSync(cacheDirectory, { recursive: true });
    const rootfs = join(cacheDirectory, `rootfs-${process.pid}`);
    rmSync(rootfs, { recursive: true, force: true });
    log(`debootstrap --variant=minbase bookworm from ${DEBIAN_MIRROR} (about a minute)`);
    const logFile = join(cacheDirectory, "debootstrap.log");
    const bootstrap = spawnSync("debootstrap", ["--variant=minbase", "bookworm", rootfs, DEBIAN_MIRROR], {
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
    });
    writeFileSync(logFile, `${bootstrap.stdout}\n${bootstrap.stderr}`);
    if (bootstrap.status !== 0)
      throw new Error(`debootstrap failed (see ${logFile}): ${bootstrap.stderr.trim().split("\n").slice(-3).join(" | ")}`);
    // What Debian's slim images leave out.
    const trim = ["var/cache/apt", "var/lib/apt/lists", "usr/share/man", "usr/share/locale", "usr/share/info"];
    for (const folder of trim) run("sh", ["-c", `rm -rf "${join(rootfs, folder)}"/*`]);
    run("find", [join(rootfs, "usr/share/doc"), "-mindepth", "1", "-type", "f", "!", "-name", "copyright", "-delete"]);
    // Node as node:20-bookworm-slim places it: /usr/local/bin/node, npm beside it.
    // Where this machine's npm lives (its own global root, whatever the calling package manager set).
    const npmDirectory = dirname(dirname(run("sh", ["-c", 'readlink -f "$(command -v npm)"']).trim()));
    mkdirSync(join(rootfs, "usr/local/bin"), { recursive: true });
    mkdirSync(join(rootfs, "usr/local/lib/node_modules"), { recursive: true });
    run("cp", [process.execPath, join(rootfs, "usr/local/bin/node")]);
    run("cp", ["-a", npmDirectory, join(rootfs, "usr/local/lib/node_modules/npm")]);
    run("ln", ["-s", "../lib/node_modules/npm/bin/npm-cli.js", join(rootfs, "usr/local/bin/npm")]);
    run("ln", ["-s", "../lib/node_modules/npm/bin/npx-cli.js", join(rootfs, "usr/local/bin/npx")]);
    run("tar", ["--numeric-owner", "-C", rootfs, "-cf", `${tarball}.partial`, "."]);
    renameSync(`${tarball}.partial`, tarball);
    rmSync(rootfs, { recursive: true, force: true });
  }
  log(`base ${tag}: podman import of ${tarball} (${origin})`);
  run("podman", [
    "import",
    "--change",
    "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "--change",
    `ENV NODE_VERSION=${nodeVersion}`,
    "--change",
    'CMD ["node"]',
    tarball,
    tag,
  ]);
  return { tag, origin };
}

/**
 * `podman build` of Containerfile on `baseTag`. Chroot isolation: these machines' cgroups refuse
 * the OCI runtime. A TLS-inspecting proxy's CA (NODE_EXTRA_CA_CERTS, else the system bundle) goes
 * in as the build secret "ca". Podman's layer cache makes a rebuild of unchanged sources take seconds.
 */
export function buildImage(baseTag, log) {
  const version = JSON.parse(readFileSync(join(ROOT, "packages/cli/package.json"), "utf8")).version;
  const revision = spawnSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).stdout?.trim() || "unknown";
  // Extra CAs add to Node's own, so handing the system bundle over is harmless where none is needed.
  const extraCa = [process.env.NODE_EXTRA_CA_CERTS, process.env.SSL_CERT_FILE, "/etc/ssl/certs/ca-certificates.crt"].find(
    (file) => file && existsSync(file),
  );
  const args = [
    "build",
    "--isolation",
    "chroot",
    "--layers",
    "-f",
    join(ROOT, "Containerfile"),
    "--build-arg",
    `BASE_IMAGE=${baseTag}`,
    "--build-arg",
    `VERSION=${version}`,
    "--build-arg",
    `REVISION=${revision}`,
    ...(extraCa ? ["--secret", `id=ca,src=${extraCa}`] : []),
    "-t",
    IMAGE_TAG,
    ROOT,
  ];
  const logFile = join(tmpdir(), "conduit-image-build.log");
  log(`podman ${args.map((arg) => (arg.includes(" ") ? JSON.stringify(arg) : arg)).join(" ")} (log: ${logFile})`);
  const started = Date.now();
  // Output goes to the log as it comes (a cold build takes minutes).
  const output = openSync(logFile, "w");
  const build = spawnSync("podman", args, { cwd: ROOT, stdio: ["ignore", output, output] });
  closeSync(output);
  const text = readFileSync(logFile, "utf8");
  if (build.status !== 0) throw new Error(`podman build failed:\n${text.trim().split("\n").slice(-40).join("\n")}`);
  const cachedSteps = (text.match(/--> Using cache/g) ?? []).length;
  return { seconds: (Date.now() - started) / 1000, cachedSteps, version, revision };
}

/** The image's config and size as podman reports them. */
export function inspectImage(tag = IMAGE_TAG) {
  const [image] = JSON.parse(run("podman", ["image", "inspect", tag]));
  return { id: image.Id, size: image.Size, config: image.Config };
}

/** Mounts the image read-only and returns its root filesystem's path. */
export function mountImage(tag = IMAGE_TAG) {
  return run("podman", ["image", "mount", tag]).trim();
}

export function unmountImage(tag = IMAGE_TAG) {
  spawnSync("podman", ["image", "unmount", tag], { stdio: "ignore" });
}

export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const shellQuote = (value) => `'${String(value).replaceAll("'", "'\\''")}'`;
const started = new Set();
process.on("exit", () => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** The pid of `parent`'s only child (unshare forks the process that becomes PID 1 of its namespace). */
function childPid(parent) {
  try {
    const listed = readFileSync(`/proc/${parent}/task/${parent}/children`, "utf8").trim();
    if (listed) return Number(listed.split(/\s+/)[0]);
  } catch {}
  const found = spawnSync("ps", ["-o", "pid=", "--ppid", String(parent)], { encoding: "utf8" }).stdout.trim();
  return found ? Number(found.split(/\s+/)[0]) : undefined;
}

/**
 * Runs the image's entrypoint with `args` (default: its CMD) from the mounted root filesystem `rootfs`,
 * as a container runtime would: new PID and mount namespaces (Node is PID 1 there, as in a pod), a
 * tmpfs on /tmp, /proc and /dev, the host folder `configDirectory` read-only at /etc/conduit; then
 * chroot as the image's user (10001), with exactly the image's environment plus `env`, in its
 * working directory. `signal` reaches Node itself, as a container runtime's stop does.
 */
export function startFromRootfs({ rootfs, config, args = config.Cmd, env = {}, configDirectory, readyPrefix = "Conduit listening on " }) {
  const user = config.User || "0:0";
  const environment = [...(config.Env ?? []), ...Object.entries(env).map(([name, value]) => `${name}=${value}`)];
  const command = [...(config.Entrypoint ?? []), ...args];
  const mounts = [
    `mount -t tmpfs -o mode=1777,size=64m tmpfs ${shellQuote(`${rootfs}/tmp`)}`,
    `mount -t proc proc ${shellQuote(`${rootfs}/proc`)}`,
    `mount --rbind /dev ${shellQuote(`${rootfs}/dev`)}`,
    ...(configDirectory
      ? [
          `mount --bind ${shellQuote(configDirectory)} ${shellQuote(`${rootfs}/etc/conduit`)}`,
          `mount -o remount,bind,ro ${shellQuote(`${rootfs}/etc/conduit`)}`,
        ]
      : []),
  ];
  const chroot = ["chroot", `--userspec=${user}`, rootfs, "/usr/bin/env", "-i", "-C", config.WorkingDir || "/", ...environment, ...command];
  const script = `set -e; ${mounts.join("; ")}; exec ${chroot.map(shellQuote).join(" ")}`;
  const child = spawn("unshare", ["--pid", "--fork", "--kill-child", "--mount", "--propagation", "private", "/bin/sh", "-c", script], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const ready = new Promise((resolve, reject) => {
    const look = () => {
      const line = stdout.split("\n").find((text) => text.startsWith(readyPrefix));
      if (line) resolve(line);
    };
    child.stdout.on("data", look);
    void exited.then(({ code, signal }) =>
      reject(new Error(`exited (${code ?? signal}) before its ready line: ${stderr.trim() || stdout.trim()}`)),
    );
  });
  ready.catch(() => undefined);
  let nodePid;
  const pid = () => (nodePid ??= childPid(child.pid));
  return {
    child,
    ready,
    exited,
    pid,
    /** Sends `name` to Node (PID 1 of its namespace). */
    signal: (name) => {
      const target = pid();
      if (target) process.kill(target, name);
    },
    output: () => ({ stdout, stderr }),
  };
}

/** The effective uid of a running process (from /proc). */
export function uidOf(pid) {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((text) => text.startsWith("Uid:"));
  return Number(line?.split(/\s+/)[2]);
}

/** Bytes of a folder tree (files counted once per inode). */
export function folderBytes(path) {
  return Number(run("du", ["-s", "-B1", path]).split(/\s+/)[0]);
}
