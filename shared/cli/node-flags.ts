/**
 * The V8 flags a long command runs with, and the one re-execution of the CLI that applies them.
 *
 * Why: on a history dump the main thread keeps ~35 MB live while it streams hundreds of MB through it,
 * and heap-growth.ts caps the old generation at 1.25× what is live (so RSS follows the live set), so
 * V8 ran a full collection every ~9 MB promoted: 25–30 per 150 MB, ~1.7 s. `--initial-old-space-size`
 * gives the old generation a floor under that cap (V8 never sets its limit below it), which cuts them to
 * 2–3 while peak RSS stays bounded (scripts/bench/heap-flags.ts measures the candidates). V8 reads
 * heap sizes only when an isolate is created, so the flag must be on node's command line (set at run
 * time it does nothing, and NODE_OPTIONS is read at start-up too): `paracap run` starts node once
 * more with it, only for inputs large enough to pay for a second start-up (`--help`, a mistyped
 * option or the embedded sample answer from the first process), unless the user gave the flag
 * themselves or this process is already that child. The launcher does so before it loads the CLI,
 * from the arguments alone (launchFlags); the run command checks the rest in the child.
 *
 * The child shares the terminal (stdio inherited, same process group: Ctrl-C reaches it directly, its
 * progress line sees the TTY); signals sent to the parent alone are passed on; the child's exit code,
 * or the signal that ended it, becomes the parent's. An IPC channel ties the child's life to the
 * parent's: a parent killed outright (SIGKILL) takes the child down with it, as one process would go.
 */
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { interruptedLine } from "./interrupted.ts";
import { parseRunArgs } from "./run-options.ts";

/** Set in the environment of the child that runs with the flags, so it does not start itself again. */
export const NODE_FLAGS_APPLIED_ENV = "PARACAP_NODE_FLAGS_APPLIED";

/**
 * Floor of the old generation's limit, MB. 128: full GCs of a 152 MB history run 30 → 3 and its CPU
 * 0.71× (256 MB: 2, 0.66×, but the floor is per isolate, so N worker threads may each hold that much
 * garbage); peak RSS 281 → 313 MiB. Above the floor heap-growth.ts's 1.25× cap still bounds RSS.
 */
export const OLD_SPACE_FLOOR_MB = 128;

/** Commands long enough for the flags to pay for a second node start-up (~40 ms of CPU). */
const LONG_COMMANDS = new Set(["run"]);

/**
 * Input bytes (as stored) from which a run starts node again with the flags. Below it a run holds
 * little and ends soon: the flags would save less than the second start-up costs (~150 ms of CPU with
 * the launcher's work). The embedded sample (1.7 MB) stays in one process; the 9 MB history excerpt
 * (152 MB of XML), where the flags cut the CPU to 0.71×, does not.
 */
export const RELAUNCH_FROM_BYTES = 4 << 20;

/** Inputs that are large by what they point at, not by their own size: URLs, crawl paths lists. */
const REMOTE_OR_LIST = /^[a-z][a-z0-9+.-]*:\/\/|\.paths(\.gz)?$/i;

/** Entries of a folder looked at before it counts as large whatever their sizes (a crawl of millions of images). */
const FOLDER_ENTRIES_LOOKED_AT = 10_000;

/**
 * Whether a run over these inputs is large enough for the flags: their files' sizes add up to
 * RELAUNCH_FROM_BYTES (a folder by the files in it), or one of them is a URL or a paths list. A path
 * that cannot be read counts as nothing (the run reports it).
 */
export function largeRun(paths: readonly string[]): boolean {
  let bytes = 0;
  let entries = 0;
  const pending = [...paths];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    if (REMOTE_OR_LIST.test(path)) return true;
    let st;
    try {
      st = statSync(path);
    } catch {
      continue;
    }
    if (st.isDirectory()) {
      let names: string[];
      try {
        names = readdirSync(path);
      } catch {
        continue;
      }
      entries += names.length;
      if (entries > FOLDER_ENTRIES_LOOKED_AT) return true;
      for (const name of names) pending.push(join(path, name));
      continue;
    }
    bytes += st.size;
    if (bytes >= RELAUNCH_FROM_BYTES) return true;
  }
  return false;
}

/** The flags of a command, by V8 flag name (the name also finds the flag among those the user gave). */
function flagsOf(command: string): Map<string, string> {
  return LONG_COMMANDS.has(command) ? new Map([["initial-old-space-size", `--initial-old-space-size=${OLD_SPACE_FLOOR_MB}`]]) : new Map();
}

/** A flag name as node and V8 accept it: dashes or underscores. */
function givenIn(options: string[], name: string): boolean {
  const pattern = new RegExp(`^--${name.replace(/-/g, "[-_]")}(=|$)`);
  return options.some((o) => pattern.test(o));
}

/**
 * The flags to start the CLI again with for `argv` (the CLI's arguments), or none: not a long
 * command, a help request, node started under a debugger, the flags already applied (this is the
 * child) or all given by the user (on node's command line or in NODE_OPTIONS).
 */
export function nodeFlagsFor(argv: readonly string[], execArgv: readonly string[], env: NodeJS.ProcessEnv): string[] {
  if (env[NODE_FLAGS_APPLIED_ENV]) return [];
  const [command, ...rest] = argv;
  if (command === undefined || rest.includes("--help") || rest.includes("-h")) return [];
  // a debugger attached to this process would not see the child (whose inspector could not take the same port)
  if (execArgv.some((a) => /^--inspect/.test(a))) return [];
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? "").split(/\s+/)];
  return [...flagsOf(command)].filter(([name]) => !givenIn(given, name)).map(([, flag]) => flag);
}

/**
 * What the launcher (bin/paracap.js) starts node again with before it loads the CLI, or none: the
 * flags of nodeFlagsFor for a `paracap run` whose options parse and whose inputs (--input, --history,
 * --images) make a largeRun. Decided from the arguments alone, so the run command's modules and
 * checks load once, in the child (~0.1 s of the launcher's CPU, at the start of every large run); a
 * mistake they find is then reported from the child, with the same message and exit code. Anything
 * else stays in the first process, which may still start the child once its checks pass (run-command.ts).
 */
export function launchFlags(argv: readonly string[], execArgv: readonly string[] = process.execArgv, env: NodeJS.ProcessEnv = process.env): string[] {
  if (argv[0] !== "run") return [];
  const flags = nodeFlagsFor(argv, execArgv, env);
  if (flags.length === 0) return [];
  let values: ReturnType<typeof parseRunArgs>;
  try {
    values = parseRunArgs(argv.slice(1));
  } catch {
    return []; // a mistyped option: answered by the run command in this process
  }
  if (values.help) return [];
  const paths = [...(values.input ?? []), ...(values.history ?? []), ...(values.images ?? [])];
  return paths.length > 0 && largeRun(paths) ? flags : [];
}

/** Signals a user or a supervisor sends to stop a run; passed on to the child. */
const FORWARDED: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * Runs `script` (the CLI's entry) again in a child node with `flags` before this process's own node
 * options, the same arguments, stdio and environment; resolves to the child's exit code. A child
 * ended by a signal ends this process by the same signal (so a shell sees 130 after Ctrl-C either way).
 */
export function relaunch(flags: string[], script: string, argv: readonly string[]): Promise<number> {
  // handlers first: a signal that comes while the child is being started is passed on once it is
  let child: ReturnType<typeof spawn> | null = null;
  let early: NodeJS.Signals | null = null;
  const forward = (signal: NodeJS.Signals) => {
    if (child === null) early = signal;
    // Ctrl-C reaches the child from the terminal too; a second SIGINT finds it already exiting.
    else if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const s of FORWARDED) process.on(s, forward);
  try {
    child = spawn(process.execPath, [...flags, ...process.execArgv, script, ...argv], {
      stdio: ["inherit", "inherit", "inherit", "ipc"],
      env: { ...process.env, [NODE_FLAGS_APPLIED_ENV]: "1" },
    });
  } catch (err) {
    for (const s of FORWARDED) process.off(s, forward);
    return Promise.reject(err);
  }
  if (early !== null) forward(early);
  const started = child;
  return new Promise((resolve, reject) => {
    started.once("error", (err) => {
      for (const s of FORWARDED) process.off(s, forward);
      reject(err);
    });
    started.once("exit", (code, signal) => {
      for (const s of FORWARDED) process.off(s, forward);
      if (signal !== null) {
        // the child reports a Ctrl-C itself (exit code 130) once its handler is on, and it is on before
        // the run writes anything: ended by SIGINT, it was stopped in its first moments, silently
        if (signal === "SIGINT") process.stderr.write(interruptedLine(null));
        process.kill(process.pid, signal);
        return; // ended by the signal (its default action, the handlers being gone)
      }
      resolve(code ?? 1);
    });
  });
}

/**
 * In the child (or a process told by the environment that its flags are applied): dies at once (SIGKILL, as the one process it stands for would have) when the parent is
 * gone without waiting for it, so a killed run leaves no process behind writing to its --out folder.
 * The channel is unref'd: it never keeps the child alive.
 * The marker stays in the environment: the run command reads it after this (nodeFlagsFor).
 */
export function dieWithParent(): void {
  if (!process.env[NODE_FLAGS_APPLIED_ENV]) return;
  // a parent gone before this ran (its channel already closed, the disconnect event already past)
  if (!process.channel || !process.connected) {
    if (process.send === undefined) return; // started with the marker but never with a channel: no parent to follow
    process.kill(process.pid, "SIGKILL");
  }
  process.channel!.unref();
  process.once("disconnect", () => process.kill(process.pid, "SIGKILL"));
}
