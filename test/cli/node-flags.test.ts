/**
 * `paracap run` starts node once more with its V8 heap flags (shared/cli/node-flags.ts): which commands
 * and inputs do (a small run and a user error stay in one process), that the relaunched run writes the
 * same outputs as one process, that exit codes and signals come back through the launcher, and that
 * a launcher killed outright leaves no run behind.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { largeRun, launchFlags, NODE_FLAGS_APPLIED_ENV, nodeFlagsFor, OLD_SPACE_FLOOR_MB, RELAUNCH_FROM_BYTES } from "../../shared/cli/node-flags.ts";
import { BIN, DATASETS, REPO, removeTempDirs, runCli, SAMPLE_CURRENT, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const FLAG = `--initial-old-space-size=${OLD_SPACE_FLOOR_MB}`;

/**
 * A current-revision dump large enough to be relaunched: the embedded sample's pages (plain XML) and
 * a user page of padding past RELAUNCH_FROM_BYTES (namespace 2: read through, never extracted), so its
 * datasets are the sample's.
 */
function largeDump(): string {
  // made once per file: no test writes to it
  return (largeDumpPath ??= makeLargeDump());
}
let largeDumpPath: string | undefined;
function makeLargeDump(): string {
  const dir = tempDir("paracap-relaunch-input-");
  const xml = execFileSync("bzip2", ["-dc", SAMPLE_CURRENT], { maxBuffer: 1 << 28 }).toString("utf8");
  const pad = `<page><title>User:Padding</title><ns>2</ns><id>900000001</id><revision><id>900000001</id><text xml:space="preserve">${"padding ".repeat(RELAUNCH_FROM_BYTES / 8 + 1024)}</text></revision></page>\n`;
  const path = join(dir, "enwiki-padded-pages-articles.xml");
  writeFileSync(path, xml.replace("</mediawiki>", `${pad}</mediawiki>`));
  return path;
}

describe("nodeFlagsFor", () => {
  it("gives `run` its heap flag, and nothing to quick commands, help, the relaunched child, a debugged node or a user's own flag", () => {
    expect(nodeFlagsFor(["run", "--history", "x.bz2"], [], {})).toEqual([FLAG]);
    expect(nodeFlagsFor(["run"], ["--import", "tsx"], {})).toEqual([FLAG]);
    for (const argv of [[], ["--help"], ["extract", "a.wikitext"], ["score"], ["run", "--help"], ["run", "-h"]]) expect(nodeFlagsFor(argv, [], {})).toEqual([]);
    expect(nodeFlagsFor(["run"], [], { [NODE_FLAGS_APPLIED_ENV]: "1" })).toEqual([]);
    expect(nodeFlagsFor(["run"], ["--inspect-brk=9230"], {})).toEqual([]);
    // the user's value wins, however spelt and wherever given
    expect(nodeFlagsFor(["run"], ["--initial-old-space-size=512"], {})).toEqual([]);
    expect(nodeFlagsFor(["run"], ["--initial_old_space_size=64"], {})).toEqual([]);
    expect(nodeFlagsFor(["run"], [], { NODE_OPTIONS: "--max-old-space-size=900 --initial-old-space-size=256" })).toEqual([]);
    // a different flag of the user's does not stop ours
    expect(nodeFlagsFor(["run"], ["--initial-old-space-size-x=1", "--max-old-space-size=900"], {})).toEqual([FLAG]);
  });

  it("relaunches only a large run: local inputs of RELAUNCH_FROM_BYTES or more (a folder by its files), a URL or a paths list", () => {
    const dir = tempDir("paracap-large-run-");
    const small = join(dir, "small.xml");
    writeFileSync(small, "x".repeat(1000));
    const big = join(dir, "big.xml");
    writeFileSync(big, Buffer.alloc(RELAUNCH_FROM_BYTES));
    const half = join(dir, "half.xml");
    writeFileSync(half, Buffer.alloc(RELAUNCH_FROM_BYTES / 2));
    mkdirSync(join(dir, "images"));
    expect(largeRun([small])).toBe(false);
    expect(largeRun([small, join(dir, "missing.xml")])).toBe(false);
    expect(largeRun([big])).toBe(true);
    expect(largeRun([half, small])).toBe(false);
    expect(largeRun([half, half.replace("half", "half-too")])).toBe(false); // missing: counts as nothing
    expect(largeRun([half, half])).toBe(true);
    // a folder counts by the files in it, however deep
    expect(largeRun([small, join(dir, "images")])).toBe(false);
    mkdirSync(join(dir, "images", "00000"));
    writeFileSync(join(dir, "images", "00000", "a.jpg"), Buffer.alloc(RELAUNCH_FROM_BYTES / 2));
    expect(largeRun([join(dir, "images")])).toBe(false);
    writeFileSync(join(dir, "images", "00000", "b.jpg"), Buffer.alloc(RELAUNCH_FROM_BYTES / 2));
    expect(largeRun([join(dir, "images")])).toBe(true);
    expect(largeRun(["https://data.commoncrawl.org/crawl-data/x.warc.gz"])).toBe(true);
    expect(largeRun([join(dir, "warc.paths.gz")])).toBe(true);
  });
});

describe("launchFlags", () => {
  it("relaunches from the arguments alone a run whose options parse and whose inputs are large; anything else is left to the run command", () => {
    const dir = tempDir("paracap-launch-flags-");
    const big = join(dir, "big-history.xml.bz2");
    writeFileSync(big, Buffer.alloc(RELAUNCH_FROM_BYTES));
    const small = join(dir, "small.xml");
    writeFileSync(small, "x");
    for (const argv of [["run", "--history", big], ["run", "--input", small, big, "--out", "o"], ["run", "--images", big, "--tiers=gold"], ["run", `--history=${big}`, "--quiet"]]) expect(launchFlags(argv, [], {}), argv.join(" ")).toEqual([FLAG]);
    // small inputs or none (the embedded sample), help, a mistyped option, another command, the child itself, the user's own flag
    for (const argv of [["run", "--input", small], ["run"], ["run", "--history", big, "--help"], ["run", "--history", big, "--no-such-option"], ["extract", big]]) expect(launchFlags(argv, [], {}), argv.join(" ")).toEqual([]);
    expect(launchFlags(["run", "--history", big], [], { [NODE_FLAGS_APPLIED_ENV]: "1" })).toEqual([]);
    expect(launchFlags(["run", "--history", big], [FLAG], {})).toEqual([]);
  });
});

/** The datasets of a run folder, by name. */
const datasets = (dir: string) => Object.fromEntries(DATASETS.filter((f) => existsSync(join(dir, f))).map((f) => [f, readFileSync(join(dir, f), "utf8")]));

/** The pids of a process's children (Linux /proc). */
function childrenOf(pid: number): number[] {
  const path = `/proc/${pid}/task/${pid}/children`;
  return existsSync(path) ? readFileSync(path, "utf8").split(/\s+/).filter(Boolean).map(Number) : [];
}

/**
 * The node the launcher started again with the flag, once it runs (its command line read from /proc: a
 * forked child shows its parent's until it has exec'd). Waited for by the process's state, not by time:
 * the launcher's output comes too late to tell (a small run's first progress line is at the end of
 * extraction, a moment before the run ends).
 */
async function relaunchedChild(launcher: number, exited: Promise<unknown>): Promise<number> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    for (const pid of childrenOf(launcher)) {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(FLAG)) return pid;
      } catch {
        // gone meanwhile
      }
    }
    if (gone) throw new Error("the launcher exited before a relaunched child was seen");
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Running (not gone, not a zombie left unreaped by the container's init). */
function isAlive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    return readFileSync(stat, "utf8").replace(/^.*\) /s, "")[0] !== "Z";
  } catch {
    return false; // gone meanwhile
  }
}

describe("paracap run through the relaunch", () => {
  it("writes the same datasets as one process started without the flag, and says the same", async () => {
    const input = largeDump();
    const args = (out: string) => ["run", "--input", input, "--tiers", "gold,silver", "--workers", "1", "--quiet", "--out", out];
    const [relaunchedDir, singleDir] = [tempDir("paracap-relaunched-"), tempDir("paracap-single-")];
    const [relaunched, single] = await Promise.all([runCli(args(relaunchedDir)), runCli(args(singleDir), { env: { [NODE_FLAGS_APPLIED_ENV]: "1" } })]);
    expect(relaunched.code).toBe(0);
    expect(single.code).toBe(0);
    expect(Object.keys(datasets(relaunchedDir)).sort()).toEqual(["gold.jsonl", "silver.jsonl"]);
    expect(datasets(relaunchedDir)).toEqual(datasets(singleDir));
    const summary = (stderr: string, dir: string) => stderr.replaceAll(dir, "OUT").replace(/ in [\d.]+ s/, " in T s");
    expect(summary(relaunched.stderr, relaunchedDir)).toBe(summary(single.stderr, singleDir));
  });

  it("a small run (the embedded sample) stays in the first process", async () => {
    const out = tempDir("paracap-one-process-");
    const launcher = spawn(process.execPath, [BIN, "run", "--input", SAMPLE_CURRENT, "--tiers", "gold", "--workers", "1", "--out", out], { cwd: REPO, stdio: ["ignore", "ignore", "pipe"] });
    const exited = new Promise<NodeJS.Signals | number | null>((res) => launcher.once("exit", (code, signal) => res(signal ?? code)));
    // the first progress line: the run is under way, in the launcher itself
    await new Promise<void>((resolve) => launcher.stderr.once("data", () => resolve()));
    const paracaps = childrenOf(launcher.pid!).filter((pid) => existsSync(`/proc/${pid}/cmdline`) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(BIN));
    expect(paracaps).toEqual([]);
    expect(await exited).toBe(0);
    expect(existsSync(join(out, "_SUCCESS"))).toBe(true);
  });

  it("passes a user error's exit code and message back, from the first process or from the child", async () => {
    const missing = await runCli(["run", "--history", join(REPO, "no-such-dump.xml.bz2"), "--out", tempDir("paracap-relaunch-err-")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`paracap run: input not found: ${join(REPO, "no-such-dump.xml.bz2")}\n`);
    // a large run's --out under a file: found by the run, in the child
    const file = join(tempDir("paracap-relaunch-err-"), "a-file");
    writeFileSync(file, "");
    const blocked = await runCli(["run", "--input", largeDump(), "--out", join(file, "sub"), "--quiet"]);
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toBe(`paracap run: cannot read ${join(file, "sub", "_SUCCESS")}: a path component is not a directory (ENOTDIR)\n`);
  });

  it("runs the work in a child with the flag; SIGTERM to the launcher ends the child and comes back as the exit signal", async () => {
    const out = tempDir("paracap-relaunch-term-");
    const launcher = spawn(process.execPath, [BIN, "run", "--input", largeDump(), "--tiers", "gold", "--workers", "1", "--out", out], { cwd: REPO, stdio: ["ignore", "ignore", "pipe"] });
    const exited = new Promise<NodeJS.Signals | number | null>((res) => launcher.once("exit", (code, signal) => res(signal ?? code)));
    const child = await relaunchedChild(launcher.pid!, exited);
    const cmdline = readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0");
    expect(cmdline.slice(1, 3)).toEqual([FLAG, BIN]);
    launcher.kill("SIGTERM");
    // the child has just started: it cannot have finished the run
    expect(await exited).toBe("SIGTERM");
    // passed on by the launcher, or (a signal that came before its handler) the child sees its parent gone;
    // the deadline only guards against a hang
    const deadline = Date.now() + 60_000;
    while (isAlive(child) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(isAlive(child)).toBe(false);
    expect(existsSync(join(out, "_SUCCESS"))).toBe(false);
  });

  it("a launcher killed outright (SIGKILL) takes its child with it", async () => {
    const out = tempDir("paracap-relaunch-kill-");
    const launcher = spawn(process.execPath, [BIN, "run", "--input", largeDump(), "--out", out, "--workers", "1"], { cwd: REPO, stdio: ["ignore", "ignore", "pipe"] });
    const exited = new Promise<NodeJS.Signals | number | null>((res) => launcher.once("exit", (code, signal) => res(signal ?? code)));
    // killed as soon as the child runs, before it can have finished (even before it watches its parent:
    // then it dies when it starts watching)
    const child = await relaunchedChild(launcher.pid!, exited);
    launcher.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    // the child notices on its next turn of the event loop; the deadline only guards against a hang
    const deadline = Date.now() + 60_000;
    while (isAlive(child) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(isAlive(child)).toBe(false);
    expect(existsSync(join(out, "_SUCCESS"))).toBe(false);
  });
});
