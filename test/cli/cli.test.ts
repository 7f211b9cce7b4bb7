/**
 * The paracap command (bin/paracap.js spawned as a user would): extract, features, score, run --help,
 * and user errors (exit code 2, one line on stderr, no stack trace). The run's option and configuration
 * errors call main() in this process (bin/paracap.js only hands its exit code on; the spawned extract,
 * features, score and PARACAP_THREADS errors check that it does): a process each cost more than the check.
 */
import { readFileSync, rmSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { silentContext } from "../../shared/core/stage.ts";
import { dedupStage } from "../../shared/pipeline/dedup-stage.ts";
import { CAPTIONS as C, collect, from, makePair } from "../pipeline/stage-helpers.ts";
import { REPO, runCli, SAMPLE_HISTORY, tempDir, removeTempDirs, type CliResult } from "../runner/helpers.ts";
import { inProcessCli } from "../support/in-process-cli.ts";

afterAll(removeTempDirs);

const FIXTURES = join(REPO, "test/fixtures/wikitext");

const cli = (args: string[], stdin = "") => runCli(args, { stdin });

/** `paracap <args>` by main() in this process (test/support/in-process-cli.ts; one at a time). */
const inProcess = inProcessCli;

const jsonl = (text: string) => text.split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l) as Record<string, unknown>);

/** A user error: exit 2, exactly one line on stderr, no stack trace. */
function expectUserError(r: CliResult, message: RegExp) {
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/^\s+at /m);
}

describe.concurrent("paracap extract", () => {
  it("lists a real article's image references: one line per caption type, type null when a reference has neither", async () => {
    const r = await cli(["extract", join(FIXTURES, "United-Kingdom.txt")]);
    expect(r.code).toBe(0);
    const lines = jsonl(r.stdout);
    for (const l of lines) expect(Object.keys(l)).toEqual(["image", "type", "text", "page", "source", "revisionId"]);
    // [[:File:Royal Coat of Arms … (Scotland).svg|[click to view image]]] is a link to the file page, not a use
    // (with the two images of its {{double image}} of the City and Canary Wharf, each with its caption)
    expect(lines).toHaveLength(74);
    const count = (t: unknown) => lines.filter((l) => l.type === t).length;
    // (the labelled map in {{Image frame|content={{Image label begin|image=…}}…|caption=The four [[countries of the United Kingdom]]}} has the frame's caption)
    expect([count("caption"), count("alt"), count(null)]).toEqual([64, 6, 4]);
    expect(lines.find((l) => l.image === "File:United Kingdom countries.svg")?.text).toBe("The four countries of the United Kingdom");
    expect(lines.find((l) => l.image === "File:The City London.jpg")?.text).toBe("The City of London is one of the world's largest financial centres");

    const wikitext = readFileSync(join(FIXTURES, "United-Kingdom.txt"), "utf8");
    // [[File:Battle of Waterloo 1815.PNG|thumb|alt=Painting of … grass.|The [[Battle of Waterloo]], 1815, marked … ''[[Pax Britannica]]'']]
    expect(wikitext).toContain("[[File:Battle of Waterloo 1815.PNG|thumb|alt=Painting of a bloody battle. Horses and infantry fight or lie on grass.|The [[Battle of Waterloo]], 1815,");
    expect(lines.filter((l) => l.image === "File:Battle of Waterloo 1815.PNG")).toEqual([
      { image: "File:Battle of Waterloo 1815.PNG", type: "caption", text: "The Battle of Waterloo, 1815, marked the end of the Napoleonic Wars and the start of Pax Britannica", page: "United-Kingdom", source: "link", revisionId: 0 },
      { image: "File:Battle of Waterloo 1815.PNG", type: "alt", text: "Painting of a bloody battle. Horses and infantry fight or lie on grass.", page: "United-Kingdom", source: "link", revisionId: 0 },
    ]);
    // | image_flag = Flag of the United Kingdom.svg   (infobox, no caption parameter)
    expect(wikitext).toContain("| image_flag = Flag of the United Kingdom.svg");
    expect(lines[0]).toEqual({ image: "File:Flag of the United Kingdom.svg", type: null, text: null, page: "United-Kingdom", source: "template", revisionId: 0 });
    // [[File:Stonehenge, …|thumb|[[Stonehenge]], in [[Wiltshire]], was erected around 2500 BC]]
    expect(lines.find((l) => String(l.image).startsWith("File:Stonehenge"))).toMatchObject({ type: "caption", text: "Stonehenge, in Wiltshire, was erected around 2500 BC" });
    // every file named in the output occurs in the article
    for (const l of lines) expect(wikitext.replace(/_/g, " ")).toContain(String(l.image).slice("File:".length));
  });

  it("reads a bz2 dump: every reference of the 120-revision history sample, with revision ids", async () => {
    const r = await cli(["extract", SAMPLE_HISTORY]);
    expect(r.code).toBe(0);
    const lines = jsonl(r.stdout);
    // 831 references, none with an alt text (2005): one line each; Kropotkin.jpg (111) and CircleAsymbol01.gif (6) uncaptioned
    expect(lines).toHaveLength(831);
    expect(lines.filter((l) => l.type === null)).toHaveLength(117);
    expect(new Set(lines.map((l) => l.revisionId)).size).toBe(120);
    expect(lines.filter((l) => l.image === "File:Ideomap-v21.gif").map((l) => /(\w+) to debate\.$/.exec(String(l.text))?.[1])).toEqual([
      ...Array(7).fill("suject"),
      ...Array(4).fill("subject"),
    ]);
    expect(r.stderr).toBe("paracap extract: 1 page, 120 revisions read\n");
  });

  it("rejects a missing file or argument as a user error", async () => {
    expectUserError(await cli(["extract", "/nonexistent/enwiki.xml.bz2"]), /^paracap extract: no such file: \/nonexistent\/enwiki\.xml\.bz2\n$/);
    expectUserError(await cli(["extract"]), /^paracap extract: usage: paracap extract/);
  });
});

describe.concurrent("paracap features", () => {
  it("writes one JSONL line per input line, in order, with the caption features", async () => {
    const input = [C.apolloInfobox, C.newt, "", "Nude Descending a Staircase, No. 2 by Marcel Duchamp, 1912"].join("\n") + "\n";
    const r = await cli(["features"], input);
    expect(r.code).toBe(0);
    const lines = jsonl(r.stdout);
    expect(lines).toHaveLength(4);
    for (const l of lines) expect(Object.keys(l).sort()).toEqual(["english", "hasVerb", "isSentence", "profane", "tags", "text", "words"]);
    expect(lines.map((l) => l.text)).toEqual([C.apolloInfobox, C.newt, "", "Nude Descending a Staircase, No. 2 by Marcel Duchamp, 1912"]);
    expect(lines[0]).toMatchObject({ words: 18, isSentence: true, hasVerb: true, english: true, profane: false });
    expect(String(lines[0]!.tags).split(" ")).toHaveLength(18);
    expect(lines[1]).toMatchObject({ words: 8, hasVerb: false, isSentence: false });
    expect(lines[2]).toMatchObject({ words: 0, tags: "" });
    // "nude" is on the LDNOOBW list
    expect(lines[3]).toMatchObject({ profane: true });
  });

  it("rejects an unknown classifier as a user error", async () => {
    expectUserError(await cli(["features", "--classifier", "bogus"]), /^paracap features: --classifier is improved or paper, got "bogus"\n$/);
  });
});

describe.concurrent("paracap score", () => {
  it("writes one JSONL line of metrics per TSV pair, in order", async () => {
    const input = `${C.ideomapOld}\t${C.ideomapNew}\n${C.apolloLink}\t${C.apolloInfobox}\n${C.apolloLink}\t${C.apolloLink}\n`;
    const r = await cli(["score"], input);
    expect(r.code).toBe(0);
    const lines = jsonl(r.stdout) as Record<string, number>[];
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(Object.keys(l).sort()).toEqual(["bleu4", "bleuCordeiro", "deltaSemSyn", "lcpNgramOverlap", "levenshtein", "paraphrase", "paraphraseBy", "rouge1F", "rougeLF", "semantic", "sumo", "syntactic", "vectorCosine", "vectorOov", "wordMoverSimilarity", "wordNgramOverlap"]);
    expect(lines[0]!.levenshtein).toBeCloseTo(1 / 62, 12); // "suject" → "subject"
    expect(lines[1]!.syntactic).toBeCloseTo(0.2441, 4); // the golden Apollo pair
    expect(lines[2]).toMatchObject({ levenshtein: 0, rouge1F: 1, rougeLF: 1, syntactic: 1 });
  });

  it("adds semantic, Δsem,syn and the paraphrase verdict, equal to what the dedup stage gives the same pair in a run", async () => {
    const pairs = [[C.apolloLink, C.apolloInfobox], [C.ideomapOld, C.ideomapNew], [C.newt, C.apolloLink]] as const;
    const r = await cli(["score"], pairs.map((p) => p.join("\t")).join("\n") + "\n");
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonl(r.stdout) as Record<string, unknown>[];
    const candidates = pairs.map(([a, b], i) => makePair("gold", `File:${i}.jpg`, "P", "Q", a, b));
    const config = resolveConfig({ pairs: { dropSpellingFixes: false } }); // keep the Ideomap typo fix
    const staged = await collect(dedupStage(config).run(from(candidates), silentContext(new Counters())));
    expect(staged).toHaveLength(pairs.length);
    for (const [i, c] of candidates.entries()) {
      const p = staged.find((s) => s.id === c.id)!;
      // equal up to the last bit: WMD differs by 1e-16 between this (vitest) process and the CLI's, whatever the pair order
      expect(lines[i]).toEqual({ ...Object.fromEntries(Object.entries(p.metrics).map(([k, v]) => [k, expect.closeTo(v, 12)])), paraphrase: p.paraphrase, paraphraseBy: p.paraphraseBy });
    }
    // the golden verdicts: the Apollo infobox vs body caption is not a paraphrase, the typo fix is
    expect(lines.map((l) => l.paraphrase)).toEqual([false, true, false]);
  });

  it("stops at a line that is not caption<TAB>caption with a clear error, after the lines before it", async () => {
    const r = await cli(["score"], `${C.apolloLink}\t${C.apolloInfobox}\n${C.apolloLink} ${C.apolloInfobox}\n${C.newt}\t${C.newt}\n`);
    expectUserError(r, /^paracap score: stdin line 2: expected caption1<TAB>caption2, found no tab \(--skip-bad answers such a line and goes on\)\n$/);
    expect(jsonl(r.stdout)).toHaveLength(1);
    const three = await cli(["score"], `a\tb\tc\n`);
    expectUserError(three, /^paracap score: stdin line 1: expected caption1<TAB>caption2, found 2 tabs \(or a first line naming the two text columns: sentence1\/sentence2, question1\/question2, .*\) \(--skip-bad answers such a line and goes on\)\n$/);
    // a caption over captions.maxChars (400 kB: minutes of scoring) is refused at once, as a run would drop it
    const huge = await cli(["score"], `${C.newt}\t${C.newt}\n${"word ".repeat(80_000)}\t${C.newt}\n`);
    expectUserError(huge, /^paracap score: stdin line 2: a caption of 400000 characters, over captions.maxChars \(5000; a --config file may raise it\)\n$/);
    expect(jsonl(huge.stdout)).toHaveLength(1);
  });

  it("--skip-bad answers a bad line {skipped} in its place, scores the others as without it, and sums up on stderr", async () => {
    const good = [[C.apolloLink, C.apolloInfobox], [C.ideomapOld, C.ideomapNew], [C.newt, C.apolloLink]].map((p) => p.join("\t"));
    // past one scoring batch (64 lines), the bad lines spread through it
    const lines = Array.from({ length: 70 }, (_, i) => good[i % 3]!);
    lines[1] = `${C.apolloLink} ${C.apolloInfobox}`;
    lines[40] = "a\tb\tc";
    lines[66] = `${"word ".repeat(80_000)}\t${C.newt}`;
    const r = await cli(["score", "--scorers", "syntactic", "--skip-bad"], lines.join("\n") + "\n");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("paracap score: 70 lines, 67 scored, 3 skipped: 2 not_a_pair (first: line 2), 1 caption_too_long (first: line 67)\n");
    const out = jsonl(r.stdout);
    expect(out).toHaveLength(70);
    expect([out[1], out[40], out[66]]).toEqual([{ skipped: "not_a_pair" }, { skipped: "not_a_pair" }, { skipped: "caption_too_long" }]);
    const plain = jsonl((await cli(["score", "--scorers", "syntactic"], good.join("\n") + "\n")).stdout);
    for (const [i, l] of out.entries()) if (![1, 40, 66].includes(i)) expect(l, `line ${i + 1}`).toEqual(plain[i % 3]);
  });
});

describe.concurrent("paracap run and general usage", () => {
  it("run says what it wrote, and on a rerun that it resumed the earlier run", async () => {
    const out = join(tempDir("paracap-cli-run-"), "out");
    const dump = join(REPO, "test/fixtures/data/wikipedia/dumpster-dive-tinywiki-latest-pages-articles.xml");
    const first = await cli(["run", "--quiet", "--workers", "1", "--tiers", "gold,silver", "--input", dump, "--out", out]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`paracap: wrote ${out}/ in `);
    expect(first.stderr).toMatch(/ {2}gold\.jsonl: \d+ pairs?\n/);
    expect(first.stderr).not.toContain("resumed");
    // a finished run is told without redoing anything
    const same = await cli(["run", "--quiet", "--workers", "1", "--tiers", "gold,silver", "--input", dump, "--out", out]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toContain(`paracap: the run in ${out}/ is already complete (same input and configuration): nothing to redo, nothing written (--fresh starts over)`);
    // one that stopped before publishing resumes
    rmSync(join(out, "_SUCCESS"));
    const again = await cli(["run", "--quiet", "--workers", "1", "--tiers", "gold,silver", "--input", dump, "--out", out]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`resumed an earlier run in ${out}/: 1 shard(s), 16 group and 16 dedup task(s) were already done (--fresh starts over)`);
  });

  it("run --help prints the run options and exits 0", async () => {
    const r = await cli(["run", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^paracap run \[--input <dump>…\] \[--history <dump>…\] \[--out <dir>\]/);
    for (const flag of ["--input", "--history", "--out", "--tiers", "--config", "--partitions", "--workers", "--fresh", "--quiet"]) expect(r.stdout).toContain(`  ${flag}`);
    expect(r.stderr).toBe("");
  });

  it("--help and no command print the usage (exit 0 and 2)", async () => {
    const help = await cli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("paracap extract <dump|file.wikitext>");
    expect((await cli([])).code).toBe(2);
  });

  it("reports bad options and values as user errors", async () => {
    expectUserError(await inProcess(["run", "--bogus"]), /^paracap run: unknown option --bogus; 'paracap run --help' lists the options\n$/);
    expectUserError(await inProcess(["run", "--tiers", "platinum"]), /^paracap run: unknown tier "platinum" \(tiers: gold, silver, bronze\)\n$/);
    expectUserError(await inProcess(["run", "--tiers", "gold,sliver"]), /^paracap run: unknown tier "sliver" \(did you mean "silver"\? tiers: gold, silver, bronze\)\n$/);
    expectUserError(await inProcess(["run", "--tiers", "gold,"]), /^paracap run: --tiers "gold," names an empty tier \(a stray comma\?\); tiers: gold, silver, bronze\n$/);
    expectUserError(await inProcess(["run", "--workers", "0"]), /^paracap run: --workers needs a positive whole number, got "0"\n$/);
    expectUserError(await runCli(["run", "--workers", "2"], { env: { PARACAP_THREADS: "many" } }), /^paracap run: PARACAP_THREADS must be auto or always, got "many"\n$/);
    expectUserError(await inProcess(["run", "--config", "/nonexistent/paracap.json"]), /^paracap run: cannot read config file \/nonexistent\/paracap\.json: no such file\n$/);
    expectUserError(await inProcess(["run", "--tiers", "bronze", "--input", SAMPLE_HISTORY.replace("history", "hist0ry")]),
      /^paracap run: no input feeds the requested tiers \(bronze\)/);
  });

  it("one-line errors for empty values, negative numbers, the same input twice, an --out that is a file, a mistyped config key", async () => {
    const dir = tempDir("paracap-cli-");
    const file = join(dir, "a-file");
    const typo = join(dir, "typo.json");
    const fs = await import("node:fs/promises");
    await fs.writeFile(file, "x");
    await fs.writeFile(typo, JSON.stringify({ captions: { minWord: 10 } }));
    const [tiers, out, partitions, twice, notDir, isFile, key] = await Promise.all([
      inProcess(["run", "--tiers", ""]),
      inProcess(["run", "--out", ""]),
      inProcess(["run", "--partitions", "-1"]),
      // the same file spelt another way: through the temporary folder and back up, unnormalised
      inProcess(["run", "--input", SAMPLE_HISTORY, `${dir}/../${basename(dir)}/${relative(dir, SAMPLE_HISTORY)}`]),
      inProcess(["run", "--out", join(file, "sub")]),
      inProcess(["run", "--out", file]),
      inProcess(["run", "--config", typo, "--out", join(dir, "out")]),
    ]);
    expectUserError(tiers, /^paracap run: --tiers needs at least one tier/);
    expectUserError(out, /^paracap run: --out needs a folder name/);
    expectUserError(partitions, /^paracap run: --partitions needs a positive whole number, got "-1"/);
    expectUserError(twice, /is the same file as .*: give each input once/);
    expectUserError(notDir, /a path component is not a directory \(ENOTDIR\)/);
    expectUserError(isFile, /^paracap run: --out .* is a file, not a folder: name a folder/);
    expect(key.code).toBe(2);
    expect(key.stderr).toMatch(/captions\.minWord: unknown key \(did you mean "captions\.minWords"\?\)/);
  });

  it("reports an invalid configuration file with the offending keys", async () => {
    const dir = tempDir("paracap-cli-");
    const bad = join(dir, "config.json");
    await import("node:fs/promises").then((fs) => fs.writeFile(bad, JSON.stringify({ captions: { minWords: -1 } })));
    const r = await inProcess(["run", "--config", bad, "--out", join(dir, "out")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^paracap run: invalid configuration:\n  captions\.minWords: /);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it("rejects an unknown command", async () => {
    const r = await inProcess(["mine"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^paracap: unknown command "mine"\n/);
    // a mistyped command is named with the closest one, as a mistyped option is
    const typo = await inProcess(["anotate", "out/"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^paracap: unknown command "anotate" \(did you mean "annotate"\?\)\n/);
  });
});
