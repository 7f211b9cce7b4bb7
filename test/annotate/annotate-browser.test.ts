/**
 * The annotation page in Debian's chromium (playwright-core, test/output/chromium.ts): three pairs
 * labelled by keyboard (typed without waiting: keys are queued, none is lost), reload resumes at the
 * fourth, undo takes back the third, and the labels file holds exactly those records. The first pair
 * shown carries an HTML injection, which must stay text; the page fetches nothing but its own server.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnnotateServer, type AnnotateServer } from "../../shared/annotate/annotate-server.ts";
import { effectiveLabels, labelsFile, readLabelsFile } from "../../shared/annotate/labels.ts";
import { samplePairs, type SampledPair } from "../../shared/annotate/sample-pairs.ts";
import { EVIL_CAPTION, EVIL_PAGE } from "../output/constructed-output.ts";
import { chromiumMissing, launchChromium, skipBrowser } from "../output/chromium.ts";
import { REPO, removeTempDirs, tempDir } from "../runner/helpers.ts";
import { annotationDataset } from "./dataset.ts";

if (skipBrowser) console.warn(`annotate-browser.test.ts skipped: ${chromiumMissing} (in CI this fails)`);

describe.skipIf(skipBrowser)("the annotation page in chromium", () => {
  let dir: string;
  let pairs: SampledPair[];
  let server: AnnotateServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  const warnings: string[] = [];

  beforeAll(async () => {
    dir = tempDir("paracap-annotate-browser-");
    annotationDataset(dir);
    const sample = await samplePairs(dir, { n: 10, stratify: "delta", seed: "1" });
    // the pair with the injected caption first, so the page must show it
    const all = await samplePairs(dir, { n: 300, stratify: null, seed: "1" });
    const evil = all.pairs.find((p) => p.pair.a.text === EVIL_CAPTION)!;
    pairs = [evil, ...sample.pairs.filter((p) => p.pair.id !== evil.pair.id)].slice(0, 10);
    server = await startAnnotateServer({ pairs, annotator: "ann1", labelsPath: labelsFile(dir, "ann1"), port: 0, warn: (m) => warnings.push(m) });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    removeTempDirs();
  });

  it("labels three pairs by keyboard, resumes after a reload, undoes one; the JSONL holds exactly that", async () => {
    // waits are for events, not for speed: a busy machine may take long
    browser.context.setDefaultTimeout(150_000);
    const page = await browser.context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("dialog", (d) => problems.push(`dialog: ${d.message()}`));
    page.on("request", (r) => requests.push(r.url()));
    const body = (name: string) => page.evaluate(`document.body.dataset.${name}`) as Promise<string | undefined>;
    // a selector, not a function: the page's CSP forbids the eval waitForFunction needs
    const until = (name: string, value: string) => page.waitForSelector(`body[data-${name}=${JSON.stringify(value)}]`, { state: "attached" });

    await page.goto(server.url);
    await until("ready", "1");
    expect(await body("pair")).toBe(pairs[0]!.pair.id);
    // the injected caption and page are shown as text: no element was made of them
    expect(await page.textContent("#a-text")).toBe(EVIL_CAPTION);
    expect(await page.textContent("#a-page")).toBe(`a · ${EVIL_PAGE}`);
    expect(await page.evaluate(`document.querySelectorAll("img, iframe, object, embed").length + document.scripts.length`)).toBe(1);

    // three pairs, typed in one go
    for (const k of ["y", "1", "4", "5", "n", "4", "2", "2", "y", "3", "3", "4"]) await page.keyboard.press(k);
    await until("labelled", "3");
    expect(await body("pair")).toBe(pairs[3]!.pair.id);
    expect(await page.textContent("#progress")).toBe("3 / 10 labelled · pair 4 of 10");

    await page.reload();
    await until("ready", "1");
    expect(await body("pair")).toBe(pairs[3]!.pair.id);
    expect(await body("labelled")).toBe("3");

    await page.keyboard.press("u");
    await until("labelled", "2");
    expect(await body("pair")).toBe(pairs[2]!.pair.id);
    expect(await page.textContent("#saved")).toBe("not labelled yet");
    mkdirSync(join(REPO, "test-artifacts"), { recursive: true });
    await page.screenshot({ path: join(REPO, "test-artifacts", "annotate.png"), fullPage: true });
    // ← shows the second pair with its saved values
    await page.keyboard.press("ArrowLeft");
    await until("pair", pairs[1]!.pair.id);
    expect(await page.$$eval("#f-relation button.on", (bs) => bs.map((b) => b.getAttribute("data-value")))).toEqual(["intersection"]);

    const read = await readLabelsFile(join(dir, "labels", "ann1.jsonl"));
    expect(read.bad).toBe(0);
    const labels = read.records.filter((r) => r.kind === "label");
    expect(labels.map((l) => ({ pair: l.pair, annotator: l.annotator, tier: l.tier, paraphrase: l.paraphrase, relation: l.relation, syntactic: l.syntactic, semantic: l.semantic }))).toEqual([
      { pair: pairs[0]!.pair.id, annotator: "ann1", tier: pairs[0]!.tier, paraphrase: true, relation: "equivalence", syntactic: 4, semantic: 5 },
      { pair: pairs[1]!.pair.id, annotator: "ann1", tier: pairs[1]!.tier, paraphrase: false, relation: "intersection", syntactic: 2, semantic: 2 },
      { pair: pairs[2]!.pair.id, annotator: "ann1", tier: pairs[2]!.tier, paraphrase: true, relation: "reverse_entailment", syntactic: 3, semantic: 4 },
    ]);
    expect(read.records).toHaveLength(4);
    const undo = read.records[3]!;
    expect(undo.kind === "retract" && undo.label === labels[2]!.id && undo.pair === pairs[2]!.pair.id).toBe(true);
    expect(effectiveLabels(read.records).map((l) => l.pair)).toEqual([pairs[0]!.pair.id, pairs[1]!.pair.id]);
    for (const l of labels) expect(Date.parse(l.time)).not.toBeNaN();

    // a second tab of the same annotator: both label a different pair at the same time, both are kept
    const tab2 = await browser.context.newPage();
    tab2.on("pageerror", (e) => problems.push(`tab 2 page error: ${e.message}`));
    await tab2.goto(server.url);
    await tab2.waitForSelector(`body[data-ready="1"]`, { state: "attached" });
    expect(await tab2.evaluate(`document.body.dataset.pair`)).toBe(pairs[2]!.pair.id);
    await tab2.keyboard.press("ArrowRight");
    await tab2.keyboard.press("ArrowRight");
    await tab2.waitForSelector(`body[data-pair=${JSON.stringify(pairs[4]!.pair.id)}]`, { state: "attached" });
    await page.keyboard.press("ArrowRight"); // back to the third pair
    await until("pair", pairs[2]!.pair.id);
    const keys = (p: typeof page, ks: string[]) => (async () => { for (const k of ks) await p.keyboard.press(k); })();
    await Promise.all([keys(page, ["n", "6", "1", "1"]), keys(tab2, ["y", "5", "2", "3"])]);
    // each tab counts 3 or 4 labels, depending on which save came first
    const saved = `body[data-labelled="3"], body[data-labelled="4"]`;
    await Promise.all([page.waitForSelector(saved, { state: "attached" }), tab2.waitForSelector(saved, { state: "attached" })]);
    const both = effectiveLabels((await readLabelsFile(join(dir, "labels", "ann1.jsonl"))).records);
    expect(both.map((l) => [l.pair, l.relation]).sort()).toEqual(
      [[pairs[0]!.pair.id, "equivalence"], [pairs[1]!.pair.id, "intersection"], [pairs[2]!.pair.id, "negation"], [pairs[4]!.pair.id, "exclusion"]].sort(),
    );
    // each tab sees the other's label after a reload
    await page.reload();
    await until("ready", "1");
    expect(await body("labelled")).toBe("4");
    await tab2.close();

    expect(problems).toEqual([]);
    expect(warnings).toEqual([]);
    const origin = new URL(server.url).origin;
    expect(requests.filter((r) => !r.startsWith(`${server.url}`) || new URL(r).origin !== origin)).toEqual([]);
    await page.close();
  });
});
