/**
 * `npm run build:functions [-- --out <dir>]`: the deployable Cloud Functions source (default
 * dist/functions, where infra/ looks for it).
 *
 * 1. esbuild emits functions/ and the shared code it imports as ESM JavaScript, one file per
 *    source file, with the `.ts` import specifiers rewritten to `.js` (as scripts/build.mjs does;
 *    types are checked by `npm run typecheck`);
 * 2. the files the emitted code opens at run time through `new URL("./…", import.meta.url)`
 *    (e.g. shared/caption/data/*.txt) are copied next to it;
 * 3. package.json names the entry point and the runtime dependencies the emitted code imports,
 *    at the versions of the root package.json, so Cloud Functions can `npm install` it.
 */
import { buildSync } from "esbuild";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const ENTRY = "functions/index.js";

export interface BuildResult {
  outDir: string;
  assets: string[];
  dependencies: Record<string, string>;
}

/** A relative `.ts` module specifier in an import, export or import() of emitted code. */
const RELATIVE_TS = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"'\n]*?)\.ts\2/g;

/** The source files functions/index.ts reaches (a bundling pass that writes nothing lists them), each emitted on its own. */
function emitModules(out: string): void {
  const graph = buildSync({ entryPoints: [join(ROOT, "functions/index.ts")], bundle: true, packages: "external", platform: "node", format: "esm", write: false, metafile: true, logLevel: "silent", outdir: out });
  const inputs = Object.keys(graph.metafile!.inputs).filter((f) => f.endsWith(".ts")).map((f) => resolve(ROOT, f));
  const result = buildSync({ entryPoints: inputs, outdir: out, outbase: ROOT, format: "esm", platform: "node", target: "node20", sourcemap: true, write: false, logLevel: "silent" });
  for (const file of result.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.path.endsWith(".js") ? file.text.replace(RELATIVE_TS, "$1$2$3.js$2") : file.contents);
  }
}

export function buildFunctions(outDir = join(ROOT, "dist/functions")): BuildResult {
  const out = resolve(outDir);
  rmSync(out, { recursive: true, force: true });
  try {
    emitModules(out);
  } catch (e) {
    throw new Error(`esbuild failed:\n${e instanceof Error ? e.message : String(e)}`);
  }
  const js = listFiles(out).filter((f) => f.endsWith(".js"));
  if (!js.includes(join(out, ENTRY))) throw new Error(`the build did not emit ${ENTRY}`);

  const assets = new Set<string>();
  const packages = new Set<string>();
  for (const file of js) {
    const code = readFileSync(file, "utf8");
    const sourceDir = dirname(join(ROOT, relative(out, file)));
    for (const m of code.matchAll(/new URL\(\s*["'](\.{1,2}\/[^"']+)["']\s*,\s*import\.meta\.url\s*\)/g)) {
      const src = resolve(sourceDir, m[1]!);
      if (/\.(ts|js)$/.test(src)) continue; // modules: emitted, or not part of the functions
      if (!existsSync(src)) throw new Error(`${relative(out, file)} opens ${m[1]} at run time, but ${relative(ROOT, src)} does not exist`);
      assets.add(relative(ROOT, src));
    }
    const specifiers = [
      ...code.matchAll(/^\s*(?:import|export)\b[^;"']*?\bfrom\s*["']([^"']+)["']/gm),
      ...code.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
      // esbuild names a module's own require `require2` when `require` is taken
      ...code.matchAll(/\b(?:import|require\d*)\(\s*["']([^"']+)["']\s*\)/g),
    ];
    for (const m of specifiers) {
      const spec = m[1]!;
      if (spec.startsWith(".") || spec.startsWith("/")) continue;
      if (spec.startsWith("node:") || builtinModules.includes(spec.split("/")[0]!)) continue;
      packages.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);
    }
  }
  for (const asset of assets) {
    const dest = join(out, asset);
    mkdirSync(dirname(dest), { recursive: true });
    cpSync(join(ROOT, asset), dest, { recursive: true });
  }

  const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; license?: string; engines?: Record<string, string>; dependencies: Record<string, string> };
  const dependencies: Record<string, string> = {};
  for (const p of [...packages].sort()) {
    const version = root.dependencies[p];
    if (!version) throw new Error(`the functions import ${p}, which is not a runtime dependency in package.json`);
    dependencies[p] = version;
  }
  const pkg = {
    name: "paracap-functions",
    version: root.version,
    private: true,
    description: "paracap cloud runner: Cloud Functions source built by `npm run build:functions` (do not edit)",
    license: root.license,
    type: "module",
    main: ENTRY,
    engines: root.engines ?? { node: ">=20" },
    dependencies,
  };
  writeFileSync(join(out, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  // Dependencies' install scripts stay off, as in the repo: onnxruntime-node's would fetch CUDA libraries
  // (hundreds of MB) a CPU function never loads; the binaries paracap uses come in optional dependencies.
  writeFileSync(join(out, ".npmrc"), "ignore-scripts=true\n");
  return { outDir: out, assets: [...assets].sort(), dependencies };
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...listFiles(p));
    else out.push(p);
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  try {
    const r = buildFunctions(values.out);
    process.stdout.write(
      `built ${relative(process.cwd(), r.outDir).startsWith("..") ? r.outDir : relative(process.cwd(), r.outDir) || "."}${sep} (main ${ENTRY}; ${Object.keys(r.dependencies).length} dependencies; assets: ${r.assets.join(", ") || "none"})\n`,
    );
  } catch (e) {
    process.stderr.write(`build:functions: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}
