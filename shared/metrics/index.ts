/** Syntactic similarity metrics for caption pairs (thesis §4.9 and the paper's ROUGE/BLEU evaluation). */
export { METRIC_NAMES, PairScorer, scorePair, THESIS_MAX_ORDER, type PairMetrics } from "./score-pair.ts";
export { wordTokens } from "./word-tokens.ts";
export { RougeTokenizer } from "./rouge-tokens.ts";
export { porterStem } from "./porter-stemmer.ts";
export { buildPairNgrams, orderStats, type OrderStats, type PairNgrams } from "./ngram-ids.ts";
export { levenshteinDistance, normalisedLevenshtein } from "./levenshtein.ts";
export { bleuCordeiro, overlapRatio, wordNgramOverlap } from "./ngram-overlap.ts";
export { lcpNgramOverlap, longestCommonPrefixes } from "./lcp-overlap.ts";
export { sumo, SUMO_ALPHA, SUMO_BETA, SUMO_K } from "./sumo.ts";
export { fMeasure, longestCommonSubsequence, rouge1F, rougeLF } from "./rouge.ts";
export { brevityPenalty, nltkSentenceBleu, symmetricBleu4, BLEU_ORDERS_NEEDED } from "./bleu.ts";
