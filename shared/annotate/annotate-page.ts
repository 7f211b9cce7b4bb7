/**
 * The annotation page: one self-contained HTML document (inline CSS and script, allowed by a per-start
 * nonce; nothing else may load). It shows one pair at a time and is driven from the keyboard:
 *
 *   y / n      paraphrase yes / no
 *   1–6        entailment relation (equivalence, forward, reverse, intersection, exclusion, negation)
 *   1–5        syntactic, then semantic similarity
 *   ↑ / ↓      previous / next field          ← / →  previous / next pair
 *   u          undo the last label            Enter  save the shown values again
 *
 * A pair is saved when its four fields are set, then the next unlabelled pair is shown. Keys are
 * handled strictly in order (a key waits for the save before it), so fast typing loses nothing. Every
 * caption, page and image name is set as textContent: captions are untrusted and never parsed as HTML.
 */
import { RELATION_HELP, RELATIONS } from "./labels.ts";

const CSS = `
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,sans-serif;color:#1d1d1f;background:#f6f7f9}
main{max-width:980px;margin:0 auto;padding:18px 22px}
header{display:flex;justify-content:space-between;align-items:baseline;gap:12px;flex-wrap:wrap}
h1{font-size:18px;margin:0}#progress{font-variant-numeric:tabular-nums;color:#333}
#bar{height:6px;background:#e3e6ea;border-radius:3px;margin:8px 0 14px}#bar>div{height:100%;background:#3b7ddd;border-radius:3px;width:0}
.meta{color:#555;font-size:13px;margin:4px 0 12px;word-break:break-word}.meta span{margin-right:14px}
.caption{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:12px 14px;margin:8px 0;white-space:pre-wrap;word-break:break-word}
.caption .who{font-size:12px;color:#777;margin-bottom:4px}.caption .text{font-size:17px}
fieldset{border:1px solid #dde1e6;border-radius:6px;margin:10px 0;padding:8px 12px;background:#fff}
fieldset.active{border-color:#3b7ddd;box-shadow:0 0 0 2px #cfe0fa}legend{font-weight:600;font-size:13px}
button{font:inherit;font-size:13px;margin:3px 4px 3px 0;padding:4px 9px;border:1px solid #c5cad1;border-radius:4px;background:#fafbfc;cursor:pointer}
button.on{background:#3b7ddd;color:#fff;border-color:#3b7ddd}kbd{font:12px ui-monospace,monospace;background:#eef0f3;border:1px solid #d5d9de;border-radius:3px;padding:0 4px}
#status{min-height:1.4em;font-size:13px;color:#555}#status.error{color:#b00020}#done{display:none;font-weight:600;color:#1a7f37}
.help{font-size:12px;color:#666}
`;

const SCRIPT = `
"use strict";
const API = location.pathname.replace(/\\/?$/, "/") + "api/";
const RELATIONS = ${JSON.stringify(RELATIONS)};
const FIELDS = ["paraphrase", "relation", "syntactic", "semantic"];
const $ = (id) => document.getElementById(id);
let state = null;      // { total, pairs, labels: { pairId: label } }
let index = 0;         // the pair shown
let draft = {};        // the shown values
let field = 0;         // the active field
let queue = Promise.resolve();

function setStatus(text, error) { const s = $("status"); s.textContent = text; s.className = error ? "error" : ""; document.body.dataset.status = error ? "error" : "ok"; }

async function call(path, body) {
  const r = await fetch(API + path, body === undefined ? { cache: "no-store" } : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), cache: "no-store" });
  const data = await r.json().catch(() => ({ error: "bad response" }));
  if (!r.ok) throw new Error(data.error || ("HTTP " + r.status));
  return data;
}

function labelled() { return state.pairs.filter((p) => state.labels[p.id]).length; }
function nextUnlabelled(from) {
  for (let k = 0; k < state.pairs.length; k++) { const i = (from + k) % state.pairs.length; if (!state.labels[state.pairs[i].id]) return i; }
  return -1;
}

function show(i) {
  index = Math.max(0, Math.min(state.pairs.length - 1, i));
  const p = state.pairs[index];
  const saved = state.labels[p.id];
  draft = saved ? { paraphrase: saved.paraphrase, relation: saved.relation, syntactic: saved.syntactic, semantic: saved.semantic } : {};
  field = 0;
  render();
}

function render() {
  const n = labelled();
  $("progress").textContent = n + " / " + state.total + " labelled · pair " + (index + 1) + " of " + state.total;
  $("bar").firstElementChild.style.width = (state.total ? (100 * n) / state.total : 0) + "%";
  $("done").style.display = n === state.total ? "block" : "none";
  const p = state.pairs[index];
  document.body.dataset.pair = p.id;
  document.body.dataset.labelled = String(n);
  $("image").textContent = p.image;
  $("tier").textContent = p.tier + " · " + (p.type || "caption");
  $("stratum").textContent = p.stratum;
  $("pairid").textContent = p.id;
  $("a-text").textContent = p.a.text; $("a-page").textContent = "a · " + p.a.page;
  $("b-text").textContent = p.b.text; $("b-page").textContent = "b · " + p.b.page;
  $("saved").textContent = state.labels[p.id] ? "labelled" : "not labelled yet";
  for (const [k, name] of FIELDS.entries()) {
    $("f-" + name).classList.toggle("active", k === field);
    for (const b of $("f-" + name).querySelectorAll("button")) b.classList.toggle("on", String(draft[name]) === b.dataset.value);
  }
}

function complete() { return FIELDS.every((f) => draft[f] !== undefined); }

async function save() {
  const p = state.pairs[index];
  setStatus("saving…");
  const r = await call("label", { pair: p.id, paraphrase: draft.paraphrase, relation: draft.relation, syntactic: draft.syntactic, semantic: draft.semantic });
  state.labels = r.labels;
  setStatus("saved " + p.id);
  const next = nextUnlabelled(index + 1);
  if (next === -1) render(); else show(next);
}

async function set(name, value) {
  draft[name] = value;
  field = Math.min(FIELDS.length - 1, FIELDS.indexOf(name) + 1);
  render();
  const saved = state.labels[state.pairs[index].id];
  const same = saved && FIELDS.every((f) => saved[f] === draft[f]);
  if (complete() && !same) await save();
}

async function undo() {
  setStatus("undoing…");
  const r = await call("undo", {});
  state.labels = r.labels;
  if (!r.undone) { setStatus("nothing to undo"); render(); return; }
  const i = state.pairs.findIndex((p) => p.id === r.undone);
  setStatus("undid the label of " + r.undone);
  if (i >= 0) show(i); else render();
}

async function key(e) {
  if (!state || e.ctrlKey || e.metaKey || e.altKey) return;
  const k = e.key;
  const name = FIELDS[field];
  if (k === "y" || k === "n") return set("paraphrase", k === "y");
  if (/^[1-6]$/.test(k)) {
    const v = Number(k);
    if (name === "relation") return set("relation", RELATIONS[v - 1]);
    if ((name === "syntactic" || name === "semantic") && v <= 5) return set(name, v);
    if (name === "paraphrase") { field = 1; return set("relation", RELATIONS[v - 1]); }
    return;
  }
  if (k === "u") return undo();
  if (k === "ArrowLeft") return show(index - 1);
  if (k === "ArrowRight") return show(index + 1);
  if (k === "ArrowUp") { field = Math.max(0, field - 1); return render(); }
  if (k === "ArrowDown") { field = Math.min(FIELDS.length - 1, field + 1); return render(); }
  if (k === "Enter" && complete()) return save();
}

function enqueue(fn) {
  queue = queue.then(fn).catch((err) => setStatus("error: " + err.message + " (nothing was lost; press the key again)", true));
}

document.addEventListener("keydown", (e) => {
  if (["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Enter"].includes(e.key) || /^[yn1-6u]$/.test(e.key)) e.preventDefault();
  enqueue(() => key(e));
});
document.addEventListener("click", (e) => {
  const b = e.target.closest("button[data-field]");
  if (!b) return;
  const f = b.dataset.field;
  const v = f === "paraphrase" ? b.dataset.value === "true" : f === "relation" ? b.dataset.value : Number(b.dataset.value);
  enqueue(() => set(f, v));
});

enqueue(async () => {
  state = await call("state");
  if (state.bad > 0) setStatus(state.bad + " unreadable line(s) in the labels file were skipped (see the terminal)", true);
  else setStatus("");
  if (state.total === 0) { $("progress").textContent = "no pairs to label"; return; }
  const next = nextUnlabelled(0);
  show(next === -1 ? 0 : next);
  document.body.dataset.ready = "1";
});
`;

const RELATION_KEYS = RELATIONS.map((r, i) => `<button type="button" data-field="relation" data-value="${r}" title="${RELATION_HELP[r]}"><kbd>${i + 1}</kbd> ${r.replace("_", " ")}</button>`).join("");
const likert = (field: string, low: string, high: string) =>
  [1, 2, 3, 4, 5].map((v) => `<button type="button" data-field="${field}" data-value="${v}"><kbd>${v}</kbd>${v === 1 ? ` ${low}` : v === 5 ? ` ${high}` : ""}</button>`).join("");

/** The page; `nonce` allows its one style and one script element (and nothing else). */
export function annotatePage(nonce: string, annotator: string): string {
  // the annotator id matches /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/ (labels.ts), so it needs no escaping
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>paracap annotate · ${annotator}</title>
<style nonce="${nonce}">${CSS}</style>
</head>
<body>
<main>
<header><h1>paracap annotate <span class="help">· ${annotator}</span></h1><div id="progress">loading…</div></header>
<div id="bar"><div></div></div>
<div id="done">Every pair of the sample is labelled. ← / → to review; u to undo.</div>
<div class="meta"><span>image <b id="image"></b></span><span id="tier"></span><span>stratum <span id="stratum"></span></span><span>pair <code id="pairid"></code></span><span id="saved"></span></div>
<div class="caption"><div class="who" id="a-page"></div><div class="text" id="a-text"></div></div>
<div class="caption"><div class="who" id="b-page"></div><div class="text" id="b-text"></div></div>
<fieldset id="f-paraphrase"><legend>Paraphrase?</legend><button type="button" data-field="paraphrase" data-value="true"><kbd>y</kbd> yes</button><button type="button" data-field="paraphrase" data-value="false"><kbd>n</kbd> no</button></fieldset>
<fieldset id="f-relation"><legend>Entailment relation (a above, b below)</legend>${RELATION_KEYS}</fieldset>
<fieldset id="f-syntactic"><legend>Syntactic similarity (wording)</legend>${likert("syntactic", "different", "same")}</fieldset>
<fieldset id="f-semantic"><legend>Semantic similarity (meaning)</legend>${likert("semantic", "unrelated", "same")}</fieldset>
<div id="status"></div>
<p class="help"><kbd>y</kbd>/<kbd>n</kbd> paraphrase · <kbd>1</kbd>–<kbd>6</kbd> relation · <kbd>1</kbd>–<kbd>5</kbd> syntactic, then semantic · <kbd>↑</kbd>/<kbd>↓</kbd> field · <kbd>←</kbd>/<kbd>→</kbd> pair · <kbd>u</kbd> undo · <kbd>Enter</kbd> save again. A pair is saved once its four fields are set; labels are appended to the labels file, so a reload resumes at the next unlabelled pair.</p>
</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>
`;
}
