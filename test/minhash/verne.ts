/** The two real English translations of Twenty Thousand Leagues (shared/data/translations beside the repo), as paragraphs. */
import { readFileSync } from "node:fs";
import { splitParagraphs, stripGutenberg } from "../../shared/minhash/paragraphs.ts";

export const TRANSLATIONS = new URL("../../../shared/data/translations/", import.meta.url).pathname;
export const MERCIER = `${TRANSLATIONS}verne-20000-leagues-pg164-mercier-1872.txt`;
export const WALTER = `${TRANSLATIONS}verne-20000-leagues-pg2488-walter.txt`;

/** Both files are ASCII/Latin-1 (PROVENANCE.md). */
export function verneParagraphs(file: string): string[] {
  return splitParagraphs(stripGutenberg(readFileSync(file, "latin1")));
}
