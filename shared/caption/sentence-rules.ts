/**
 * Sentence classifiers over Penn Treebank tags: is a caption a sentence (every sentence segment has a
 * main clause with a finite verb) or a fragment (noun phrase, reduced relative, gerund phrase)?
 * Both are pure functions over already tagged sentence segments.
 */
import { PAST_ONLY } from "./verb-forms.ts";

/** A token with its Penn tag. */
export interface TaggedWord {
  readonly word: string;
  readonly tag: string;
  /** another tag the lexicon allows (lexical-alternatives.ts), taken by the improved rules where the syntax calls for it */
  readonly alt?: string;
}

/** Which classifier decides `isSentence`. */
export type SentenceClassifier = "improved" | "paper";

const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;
const FINITE = new Set(["VBP", "VBZ", "VBD"]);
const WH = new Set(["WDT", "WP", "WP$", "WRB"]);

/** Removes `-LRB- … -RRB-` spans, non-greedy, like the reference's regex on the tag string. */
export function dropParenthesised<T extends { readonly tag: string }>(tokens: readonly T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i]!.tag === "-LRB-") {
      const close = tokens.findIndex((t, j) => j > i && t.tag === "-RRB-");
      if (close > i) {
        i = close;
        continue;
      }
    }
    out.push(tokens[i]!);
  }
  return out;
}

function hasModalWithBaseVerb(tags: readonly string[]): boolean {
  for (let i = 0; i < tags.length; i++) {
    if (tags[i] !== "MD") continue;
    const next = tags[i + 1] === "RB" ? tags[i + 2] : tags[i + 1];
    if (next?.startsWith("VB")) return true; // the reference regex `MD (RB )?VB` also matches VBD/VBZ…
  }
  return false;
}

function finiteBefore(tags: readonly string[], end: number): boolean {
  for (let i = 0; i < end; i++) if (FINITE.has(tags[i]!)) return true;
  return false;
}

/**
 * The four published rules (docs/method.md) for one sentence segment; the first rule whose premise holds decides:
 * 1) MD → `MD RB? VB`; 2) WDT/WP/WRB → finite verb before the first wh-word; 3) IN → finite verb before
 * the first IN; 4) otherwise a finite verb anywhere.
 */
export function paperSegmentIsSentence(segmentTags: readonly string[]): boolean {
  const tags = dropParenthesised(segmentTags.map((tag) => ({ tag }))).map((t) => t.tag);
  if (tags.includes("MD")) return hasModalWithBaseVerb(tags);
  const wh = tags.findIndex((t) => WH.has(t));
  if (wh >= 0) return finiteBefore(tags, wh);
  const prep = tags.indexOf("IN");
  if (prep >= 0) return finiteBefore(tags, prep);
  return finiteBefore(tags, tags.length);
}

// Subordinating conjunctions that always open a clause whose verb is not the main verb.
const SUBORDINATORS = new Set(["because", "although", "though", "whereas", "if", "unless", "whether", "while", "whilst", "lest", "that"]);
// Words that are prepositions before a noun phrase but subordinators before a clause ("since 2003" / "since he left").
const CLAUSE_OR_PP = new Set(["since", "after", "before", "until", "till", "as", "once", "when"]);
const NOMINATIVE = new Set(["i", "we", "he", "she", "they", "you", "it"]);
// Pronouns that can only be subjects: a noun directly followed by one starts a contact relative ("the basket i made").
const SUBJECT_ONLY = new Set(["i", "we", "he", "she", "they"]);
const AUXILIARY_FORMS = new Set(["is", "are", "am", "was", "were", "'s", "'re", "has", "have", "had", "does", "do", "did"]);

const isNominal = (tag: string) => tag.startsWith("NN") || tag === "PRP" || tag === "EX" || tag === "CD" || tag === "DT";
// What can begin an object noun phrase after a transitive verb.
const startsNounPhrase = (tag: string | undefined) =>
  tag !== undefined && (tag.startsWith("NN") || tag.startsWith("JJ") || tag === "DT" || tag === "PDT" || tag === "PRP" || tag === "PRP$" || tag === "CD");

function nextContent(tokens: readonly TaggedWord[], i: number): TaggedWord | undefined {
  let j = i + 1;
  while (j < tokens.length && (tokens[j]!.tag === "RB" || tokens[j]!.tag === "RP")) j++;
  return tokens[j];
}

function previousContent(tokens: readonly TaggedWord[], i: number): TaggedWord | undefined {
  let j = i - 1;
  while (j >= 0 && tokens[j]!.tag === "RB") j--;
  return tokens[j];
}

/**
 * A -ed form the tagger called past tense without an auxiliary, right after a noun and followed by no
 * object, heads a reduced relative ("Map presented by …", "homes located in …"), not a main clause.
 * Unambiguous past forms ("took") and pronoun subjects ("he ruled over …") stay finite.
 */
function isReducedRelative(tokens: readonly TaggedWord[], i: number): boolean {
  const word = tokens[i]!.word.toLowerCase();
  if (PAST_ONLY.has(word)) return false;
  const prev = previousContent(tokens, i);
  if (prev?.tag === "PRP" || prev?.tag === "EX") return false;
  // Only a noun phrase ending right before it can be the subject of a finite -ed verb ("Kanner introduced
  // the label"); after a comma it continues a participle list ("…, located road side").
  if (prev === undefined || !(prev.tag.startsWith("NN") || prev.tag === "CD" || prev.tag === "-RRB-")) return true;
  return !startsNounPhrase(nextContent(tokens, i)?.tag);
}

/** Does token i open a subordinate clause whose finite verb must not count as the main verb? */
function opensSubordinateClause(tokens: readonly TaggedWord[], i: number): boolean {
  const { word, tag } = tokens[i]!;
  const lower = word.toLowerCase();
  if (WH.has(tag)) return true;
  if ((tag === "IN" || tag === "WDT") && SUBORDINATORS.has(lower)) return true;
  const next = tokens[i + 1];
  if (CLAUSE_OR_PP.has(lower) && next !== undefined && (next.tag === "PRP" && NOMINATIVE.has(next.word.toLowerCase()) || next.tag === "EX")) return true;
  if (tag === "PRP" && SUBJECT_ONLY.has(lower) && i > 0 && tokens[i - 1]!.tag.startsWith("NN")) return true;
  return false;
}

/**
 * Subject–verb agreement: a plain present-tense non-3rd-person form right after a singular noun, with no
 * coordination before it, cannot be that noun's verb; it is a noun compound the model mis-tagged
 * ("photo shoot at home", "Russian stamp featuring …"). "Washington and Lafayette look …" agrees.
 */
function disagreesWithSingularNoun(tokens: readonly TaggedWord[], i: number): boolean {
  const prev = tokens[i - 1];
  if (prev === undefined || (prev.tag !== "NN" && prev.tag !== "NNP")) return false;
  if (AUXILIARY_FORMS.has(tokens[i]!.word.toLowerCase())) return false;
  // Coordination inside the noun phrase right before the verb makes a plural subject.
  for (let j = i - 1; j >= 0 && NOUN_PHRASE_PART.test(tokens[j]!.tag); j--) if (tokens[j]!.tag === "CC") return false;
  return true;
}

const NOUN_PHRASE_PART = /^(NN|NNS|NNP|NNPS|JJ|JJR|JJS|DT|PDT|PRP\$|POS|CD|CC|,|HYPH)$/;
// A finite verb follows its subject (or a comma/conjunction/relative word); never a verb, participle,
// infinitive marker or modal ("artist performing live at …": "live" is not finite).
const CANNOT_PRECEDE_FINITE = new Set(["VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "TO", "MD"]);

type VerbKind = "finite" | "imperative-or-question" | "none";

function verbKind(tokens: readonly TaggedWord[], i: number, first: number): VerbKind {
  const { word, tag } = tokens[i]!;
  const next = nextContent(tokens, i);
  if (tag === "MD") {
    if (!next?.tag.startsWith("VB")) return "none";
    return i === first && startsNounPhrase(tokens[i + 1]?.tag) ? "imperative-or-question" : "finite";
  }
  if (i === first) {
    // Caption-initial: an inverted auxiliary ("Have you ever …?") or an imperative with its object
    // ("Keep an eye …"). A caption-initial "verb" followed by "of" is a mis-tagged noun ("Map of …").
    if (FINITE.has(tag) && AUXILIARY_FORMS.has(word.toLowerCase()) && startsNounPhrase(tokens[i + 1]?.tag)) return "imperative-or-question";
    // The object must be visibly a noun phrase (determiner, pronoun, adjective): a bare noun after a
    // caption-initial "verb" is usually a noun compound the model mis-tagged ("cross standing …").
    if (tag === "VB" && /^(DT|PDT|PRP|PRP\$|JJ|JJR|JJS|CD)$/.test(tokens[i + 1]?.tag ?? "")) return "imperative-or-question";
    return "none";
  }
  const prev = previousContent(tokens, i);
  // …except the caption-initial word, which is the subject when it is followed by a finite verb ("Braille is …").
  if (prev !== undefined && prev !== tokens[first] && CANNOT_PRECEDE_FINITE.has(prev.tag)) return "none";
  if (tag === "VBP" && disagreesWithSingularNoun(tokens, i)) return "none";
  if (tag === "VBZ" || tag === "VBP") return "finite";
  if (tag === "VBD") return isReducedRelative(tokens, i) ? "none" : "finite";
  return "none";
}

// What can follow a finite verb read from a noun (a second reading the lexicon allows): its object's
// determiner or pronoun ("rides a horse"); a preposition or particle ("stares directly at …"), or a bare
// noun and a preposition ("fishes river on …"), only after a subject noun phrase that opens with a
// determiner and stands first (caption start or after a comma): otherwise the noun is as often a
// compound's head ("Military uniforms of …", "boats on the ocean waves near …", "featuring the painting
// veils by …"). Never "of", an adjective or the caption's end ("the books stack").
const OPENS_OBJECT = new Set(["DT", "PDT", "PRP", "PRP$"]);
const OPENS_ADJUNCT = new Set(["IN", "TO", "RP"]);
const NOUN_PHRASE_INSIDE = /^(NN|NNS|NNP|NNPS|JJ|JJR|JJS|CD|HYPH|POS)$/;

/**
 * Does the noun phrase ending at token `last` stand first in the caption (at its start or after a comma
 * or colon), i.e. is it no object of a preposition or verb? With `determined`, must it open with a
 * determiner or possessive ("a person", "the old man")?
 */
function standsFirst(tokens: readonly TaggedWord[], last: number, determined: boolean): boolean {
  let j = last;
  while (j >= 0 && NOUN_PHRASE_INSIDE.test(tokens[j]!.tag)) j--;
  const opensWithDeterminer = j >= 0 && (tokens[j]!.tag === "DT" || tokens[j]!.tag === "PRP$");
  if (determined && !opensWithDeterminer) return false;
  const before = previousNonPunctuation(tokens, opensWithDeterminer ? j : j + 1);
  return before === undefined || before.tag === "," || before.tag === ":";
}

function previousNonPunctuation(tokens: readonly TaggedWord[], i: number): TaggedWord | undefined {
  for (let j = i - 1; j >= 0; j--) if (HAS_WORD_CHAR.test(tokens[j]!.word) || tokens[j]!.tag === "," || tokens[j]!.tag === ":") return tokens[j];
  return undefined;
}

/** Does an object noun phrase open at token j: a pronoun, or a determiner with a word after it ("pairs A, B": a letter, not "a")? */
function opensObject(tokens: readonly TaggedWord[], j: number): boolean {
  const t = tokens[j];
  return t !== undefined && OPENS_OBJECT.has(t.tag) && (t.tag === "PRP" || HAS_WORD_CHAR.test(tokens[j + 1]?.word ?? ""));
}

/** Does an adjunct follow at token j ("at …", "river on …")? */
function opensAdjunct(tokens: readonly TaggedWord[], j: number): boolean {
  const t = tokens[j];
  if (t === undefined) return false;
  if (OPENS_ADJUNCT.has(t.tag)) return t.word.toLowerCase() !== "of";
  return t.tag === "NN" && tokens[j + 1]?.tag === "IN" && tokens[j + 1]!.word.toLowerCase() !== "of";
}

function nextContentIndex(tokens: readonly TaggedWord[], i: number): number {
  let j = i + 1;
  while (j < tokens.length && (tokens[j]!.tag === "RB" || tokens[j]!.tag === "RP")) j++;
  return j;
}

/**
 * The segment with the lexicon's alternative tags taken where the model's tag leaves no clause and the
 * alternative fits the syntax around it:
 * - a caption-initial capitalised plural common noun the model called a proper noun ("Volunteers
 *   assist …") is a plural subject, which agrees with a following plural verb;
 * - a plural noun that is also a verb's -s form, right after a singular noun and before an object
 *   ("a young surfer rides a wave") or, after a determiner-led subject standing first, an adjunct
 *   ("a man travels in a boat"), is that noun's verb;
 * - a noun that is also a verb's base form, right after a plural noun heading a subject that stands
 *   first, and before an object ("police officers exit the residence") or a bare noun and a preposition
 *   ("cowboys drive cattle down the road"), is their verb.
 */
function withLexicalAlternatives(tokens: readonly TaggedWord[], first: number): TaggedWord[] {
  const out = tokens.slice();
  const initial = out[first];
  if (initial?.alt === "NNS" && (initial.tag === "NNP" || initial.tag === "NNPS")) out[first] = { ...initial, tag: "NNS" };
  for (let i = first + 1; i < out.length; i++) {
    const t = out[i]!;
    const prev = out[i - 1]!.tag;
    const next = nextContentIndex(out, i);
    if (t.alt === "VBZ" && t.tag === "NNS" && (prev === "NN" || prev === "NNP")) {
      if (opensObject(out, next) || opensAdjunct(out, next) && standsFirst(out, i - 1, true)) out[i] = { ...t, tag: "VBZ" };
    } else if (t.alt === "VBP" && t.tag === "NN" && (prev === "NNS" || prev === "NNPS")) {
      const bareObject = out[next]?.tag === "NN" && opensAdjunct(out, next); // "drive cattle down the road"
      if ((opensObject(out, next) || bareObject) && standsFirst(out, i - 1, false)) out[i] = { ...t, tag: "VBP" };
    }
  }
  return out;
}

/**
 * Improved rule for one sentence segment: it is a sentence when some finite verb heads a main clause,
 * i.e. it has a subject before it (or is a caption-initial imperative/question) and is not the verb of
 * a subordinate clause opened earlier (wh-word, subordinating conjunction, contact relative).
 * Prepositions are not clause boundaries: "The bridge over the river was built in 1890." is a sentence.
 */
export function improvedSegmentIsSentence(segment: readonly TaggedWord[]): boolean {
  const bare = dropParenthesised(segment);
  let first = 0;
  while (first < bare.length && !/[\p{L}\p{N}]/u.test(bare[first]!.word)) first++;
  const tokens = withLexicalAlternatives(bare, first);
  let pendingSubordinate = 0;
  let sawNominal = false;
  // Nouns governed by a preposition are not subjects ("outside with a clay colored …") until a comma or
  // conjunction ends the phrase; a subject followed by a PP ("The bridge over the river was …") was seen before it.
  let inPrepositionalPhrase = false;
  for (let i = first; i < tokens.length; i++) {
    const { tag } = tokens[i]!;
    if (opensSubordinateClause(tokens, i)) {
      pendingSubordinate++;
      inPrepositionalPhrase = false;
      continue;
    }
    const kind = verbKind(tokens, i, first);
    if (kind === "none") {
      if (tag === "IN" || tag === "TO") inPrepositionalPhrase = true;
      else if (tag === "," || tag === "CC" || tag === ":") inPrepositionalPhrase = false;
      // A caption-initial word that is neither imperative nor inverted auxiliary starts the subject even
      // when the model tagged it as a verb ("Braille is …"); so does a demoted verb.
      else if (!inPrepositionalPhrase && (isNominal(tag) || i === first || tag === "VBP")) sawNominal = true;
      continue;
    }
    if (pendingSubordinate > 0) {
      pendingSubordinate--;
      continue;
    }
    if (kind === "imperative-or-question" || sawNominal) return true;
  }
  return false;
}

/**
 * Caption-level verdict: every sentence segment must pass (a caption mixing a fragment and a sentence
 * is not a sentence). A caption without any segment is not a sentence.
 */
export function isSentence(segments: readonly (readonly TaggedWord[])[], classifier: SentenceClassifier): boolean {
  if (classifier === "paper") {
    const nonEmpty = segments.filter((s) => s.length > 0);
    return nonEmpty.length > 0 && nonEmpty.every((s) => paperSegmentIsSentence(s.map((t) => t.tag)));
  }
  // A segment that is only a parenthetical or punctuation ("(March 1962 photo)") has no clause to judge.
  const withWords = segments.filter((s) => dropParenthesised(s).some((t) => HAS_WORD_CHAR.test(t.word)));
  return withWords.length > 0 && withWords.every(improvedSegmentIsSentence);
}
