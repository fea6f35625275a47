/**
 * The npm package holds what runs (dist/src, bin, probes) and what the addon build needs (binding.gyp,
 * native/, scripts/build-addon.mjs), nothing else; `npm install -g` of the packed tarball into an empty
 * prefix gives a working `lsmscope`, with the engine addon built where librocksdb-dev is present and one
 * clear line where it is not. The install fetches the dependencies from the npm registry (or npm's cache).
 */
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createReadStream, existsSync, mkdirSync, readFileSync, readdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { REPO, SAMPLES, trackedTempDirs } from "../helpers/index.js";

const { tempDir, cleanupTemps } = trackedTempDirs("lsmscope-pack-");
afterAll(cleanupTemps);
const hasRocksdbHeaders = existsSync("/usr/include/rocksdb/db.h");

/** spawn without blocking the test worker (the install takes tens of seconds: dependencies, native builds). */
function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(cmd, args, { cwd, env });
    let stdout = "";
    let stderr = "";
    c.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    c.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    c.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** npm's environment: it reaches the registry, so the certificates the suite's other runs go without (test/setup). */
function npmEnv(): NodeJS.ProcessEnv {
  const ca = process.env.LSMSCOPE_TEST_NODE_EXTRA_CA_CERTS;
  return ca === undefined ? process.env : { ...process.env, NODE_EXTRA_CA_CERTS: ca };
}

/**
 * zstd-napi's install script fetches its prebuilt binary from its GitHub releases and, failing that,
 * compiles zstd from source: ~57 s of one core here (49 s of CPU), most of this test's time and
 * none of it lsmscope's. A user online gets the prebuilt binary; this machine cannot reach GitHub.
 * So the test serves the binary the clone's own install built (node_modules/zstd-napi), packed as
 * its releases are, from a local mirror (prebuild-install's `npm_config_zstd_napi_binary_host`):
 * the install takes the path a user's does. Without that binary, or when the download fails (a
 * proxy that will not reach 127.0.0.1), zstd-napi builds from source as before: slower, same test.
 * Returns `base` with the mirror named, and the server to close, if one was started.
 */
async function zstdMirror(
  dir: string,
  base: NodeJS.ProcessEnv,
): Promise<{ env: NodeJS.ProcessEnv; server?: Server }> {
  const pkgDir = join(REPO, "node_modules", "zstd-napi");
  if (!existsSync(join(pkgDir, "build", "Release", "binding.node"))) return { env: base };
  const mirror = join(dir, "zstd-mirror");
  mkdirSync(mirror);
  const tarball = join(mirror, "binding.tar.gz");
  execFileSync("tar", ["-czf", tarball, "-C", pkgDir, "build/Release/binding.node"]);
  // the release asset of this version for Node-API on glibc x64 Linux (another version is not served:
  // its JavaScript may not match this binary): {name}-v{version}-napi-v{n}-linux-x64.tar.gz
  const { version } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { version: string };
  const v = version.replace(/\./g, "\\.");
  const asset = new RegExp(`/v${v}/zstd-napi-v${v}-napi-v\\d+-linux-x64\\.tar\\.gz$`);
  const server = createServer((req, res) => {
    if (req.method === "GET" && asset.test(req.url ?? "")) createReadStream(tarball).pipe(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { env: { ...base, npm_config_zstd_napi_binary_host: `http://127.0.0.1:${port}` }, server };
}

interface PackFile {
  path: string;
}

/**
 * `npm pack` of the repository, run once for both tests: its --json listing (the same files, size and
 * unpacked size that --dry-run lists) and the tarball it wrote. An npm run costs ~2 s of CPU here.
 */
let packed: { pack: { files: PackFile[]; size: number; unpackedSize: number }; tarball: string } | undefined;
function npmPack(): NonNullable<typeof packed> {
  if (packed) return packed;
  const dir = tempDir();
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", dir, "--ignore-scripts"], {
    cwd: REPO,
    encoding: "utf8",
  });
  const [pack] = JSON.parse(out) as [NonNullable<typeof packed>["pack"]];
  const tarball = join(
    dir,
    readdirSync(dir).find((n) => n.endsWith(".tgz"))!,
  );
  return (packed = { pack, tarball });
}

describe("npm package", () => {
  it("packs what runs and what the addon build needs, nothing else", () => {
    const { pack } = npmPack();
    const paths = pack.files.map((f) => f.path);
    for (const p of [
      "package.json",
      "bin/lsmscope.js",
      "dist/src/cli/main.js",
      "dist/src/bundle/cli.cjs",
      "dist/src/bundle/cli.cache",
      "dist/src/sizes/worker.cjs",
      "dist/src/index.js",
      "dist/src/index.d.ts",
      "binding.gyp",
      "native/engine.cc",
      "native/readahead.c",
      "native/map_file.c",
      "native/codec.c",
      "native/checksum.c",
      "native/napi_helpers.h",
      "scripts/build-addon.mjs",
      "scripts/helper-headers.mjs",
      "probes/besu-absent-account.json",
    ])
      expect(paths, p).toContain(p);
    const stray = paths.filter(
      (p) =>
        /^(test|samples|bench|src|dist\/bench|node_modules|build)\//.test(p) ||
        p.endsWith(".map") ||
        p.endsWith(".tgz"),
    );
    expect(stray).toEqual([]);
    // dist/src holds a .js and a .d.ts per module (about 270 modules now), the CLI bundle with its code
    // cache (~1.9 MB), the TUI's bundle with Ink and React (~1.1 MB) and the sizes worker's (~0.2 MB;
    // scripts/bundle-cli.mjs); the tarball of an earlier round held 834 files
    expect(paths.length).toBeLessThan(650);
    expect(pack.unpackedSize).toBeLessThan(6 * 1024 * 1024);
  });

  it("npm install -g of the tarball in an empty prefix: lsmscope runs; the addon is built or says why not", async () => {
    const dir = tempDir();
    const { tarball } = npmPack();
    const prefix = join(dir, "prefix");
    const { env, server } = await zstdMirror(dir, npmEnv());
    const install = await run(
      "npm",
      [
        "install",
        "-g",
        "--prefix",
        prefix,
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--foreground-scripts",
        tarball,
      ],
      dir,
      env,
    ).finally(() => server?.close());
    expect(install.status, install.stderr).toBe(0);
    // the install script's one line: built, or not built and why
    const note = (install.stdout + install.stderr)
      .split("\n")
      .filter((l) => l.startsWith("lsmscope: engine addon"));
    expect(note).toHaveLength(1);
    const bin = join(prefix, "bin", "lsmscope");
    expect(execFileSync(bin, ["--version"], { encoding: "utf8" }).trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const inspect = spawnSync(bin, ["inspect", join(SAMPLES, "besu-snapshot")], { encoding: "utf8" });
    expect(inspect.status).toBe(0);
    expect(inspect.stdout).toContain("cf06 ACCOUNT_INFO_STATE");
    const pkgDir = join(prefix, "lib", "node_modules", "lsmscope");
    const addon = join(pkgDir, "build", "Release", "lsmscope_engine.node");
    if (hasRocksdbHeaders) {
      expect(note[0]).toContain("engine addon built");
      expect(existsSync(addon)).toBe(true);
      // and the helpers beside it where their system libraries' headers are (scripts/helper-headers.mjs):
      // the block codec over libsnappy and liblz4 (librocksdb-dev brings them on Debian), the
      // checksums over ISA-L and xxHash (libisal-dev, libxxhash-dev)
      const built = [
        ["lsmscope_codec", "codec"],
        ["lsmscope_checksum", "checksum"],
      ].map(([target, helper]) => {
        const headers = execFileSync(
          process.execPath,
          [join(pkgDir, "scripts", "helper-headers.mjs"), helper!],
          {
            encoding: "utf8",
          },
        );
        expect(existsSync(join(pkgDir, "build", "Release", `${target}.node`)), target).toBe(headers === "1");
        return headers === "1";
      });
      // the install's one line says which were built
      if (built.every(Boolean)) expect(note[0]).toContain("with its four helpers");
      else expect(note[0]).toMatch(/no (block codec|checksum helper)/);
      // the engine path answers through the installed addon
      const plan = spawnSync(bin, ["compact", join(SAMPLES, "besu-generated")], { encoding: "utf8" });
      expect(plan.status, plan.stderr).toBe(0);
      // the plan wraps at 80 columns, so where the line breaks depends on the path's length
      expect(plan.stdout.replace(/\s+/g, " ")).toContain("engine: RocksDB 7.8.3");
    } else expect(note[0]).toContain("librocksdb-dev is not installed");
    // where librocksdb-dev is missing: one clear line, exit 0
    const without = spawnSync(process.execPath, [join(pkgDir, "scripts", "build-addon.mjs"), "--optional"], {
      encoding: "utf8",
      env: { ...process.env, LSMSCOPE_ROCKSDB_HEADER: "/nonexistent/rocksdb/db.h" },
    });
    expect(without.status).toBe(0);
    expect(without.stdout.trim().split("\n")).toEqual([
      expect.stringMatching(/^lsmscope: engine addon not built \(.*librocksdb-dev is not installed\)/),
    ]);
  }, 600_000);
});
