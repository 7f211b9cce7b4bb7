/** Builders for stage tests: real captions through the real caption analyzer. */
import { useState } from "../../shared/pipeline/funnel.ts";
import { createCaptionAnalyzer } from "../../shared/caption/analyzer.ts";
import type { CandidatePair, CaptionFeatures, InputKind, ReferenceSource, ShuffleRef } from "../../shared/core/records.ts";
import { makePair as makeCandidate } from "../../shared/pipeline/group-stage.ts";

let analyzer: ReturnType<typeof createCaptionAnalyzer> | null = null;

export function features(text: string): CaptionFeatures {
  analyzer ??= createCaptionAnalyzer();
  return analyzer.features(text);
}

export interface RefSpec {
  image: string;
  page: string;
  pageId?: number;
  revisionId?: number;
  ordinal?: number;
  kind?: InputKind;
  source?: ReferenceSource;
  uses?: number;
  caption?: string | null;
  alt?: string | null;
}

export function ref(s: RefSpec): ShuffleRef {
  return {
    image: s.image,
    kind: s.kind ?? "current",
    page: s.page,
    pageId: s.pageId ?? 1,
    revisionId: s.revisionId ?? 100,
    ordinal: s.ordinal ?? 0,
    source: s.source ?? "link",
    uses: s.uses ?? 1,
    caption: s.caption == null ? null : features(s.caption),
    alt: s.alt == null ? null : features(s.alt),
  };
}

export async function* from<T>(items: Iterable<T>): AsyncGenerator<T> {
  for (const x of items) yield x;
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Real captions (and alt texts) from the embedded sample and the Anarchism history excerpt. */
export const CAPTIONS = {
  // "Apollo 11": infobox image_caption and a body link of File:Apollo 11 first step.jpg — both sentences
  apolloInfobox: "Neil Armstrong descends a ladder to become the first human to step onto the surface of the Moon",
  apolloLink: "A mounted slowscan TV camera shows Armstrong as he climbs down the ladder to surface",
  // "Anarchism" history, File:Ideomap-v21.gif: a typo fixed between revisions (contains verbs, not one sentence)
  ideomapOld: "Political ideology diagram, showing anarcho-socialism at the upper left and anarcho-capitalism at the upper right. The up-down dimension represents the extent of government; the left-right dimension represents the outward appearance (legal fiction) of property ownership. In theory, both socialism and capitalism have statist and anti-statist variants. The placement of persons and parties on this graph are only approximate, and suject to debate.",
  ideomapNew: "Political ideology diagram, showing anarcho-socialism at the upper left and anarcho-capitalism at the upper right. The up-down dimension represents the extent of government; the left-right dimension represents the outward appearance (legal fiction) of property ownership. In theory, both socialism and capitalism have statist and anti-statist variants. The placement of persons and parties on this graph are only approximate, and subject to debate.",
  // "Anarchism" history, File:blkred flag.png: one caption unchanged in all 120 revisions
  blkred: "The red-and-black flag, coming from the experience of anarchists in the labour movement, is particularly associated with anarcho-syndicalism.",
  // "Anarchism" history, File:Food Not Bombs logo.png: one revision escaped the quotes
  foodNotBombs: 'Food Not Bombs logo, which plays off the classic "militant fist".',
  foodNotBombsEscaped: 'Food Not Bombs logo, which plays off the classic \\"militant fist\\".',
  // "Amphibian": File:Triturus dobrogicus dunai tarajosgőte.jpg — a noun phrase, no verb
  newt: "Danube crested newt (Triturus dobrogicus), an advanced salamander",
  // "Angola" / "Demographics of Angola": File:Angola Ethnic map 1970.svg — one adds a parenthesised aside
  angolaLong: 'Ethnic groups of Angola 1970 (with areas where the so-called "Ganguela" groups are dominant, marked green)',
  angolaShort: "Ethnic groups of Angola 1970",
  // "Abraham Lincoln": File:Young Lincoln By Charles Keck.JPG, caption and alt
  lincolnCaption: "The young Lincoln in sculpture at Senn Park, Chicago.",
  lincolnAlt: "A statue of young Lincoln sitting on a stump, holding a book open on his lap",
  // "Abraham Lincoln": File:Lincoln and McClellan 1862-10-03.jpg, caption and alt
  mcclellanCaption: "Lincoln and George McClellan after the Battle of Antietam in 1862.",
  mcclellanAlt: "Photograph of Lincoln and McClellan sitting at a table in a field tent",
} as const;

/**
 * A caption pair as the group stage builds it (canonical side order, stable id): `textA` used on page
 * `pageA`, `textB` on `pageB`, both of `image`.
 */
export function makePair(tier: string, image: string, pageA: string, pageB: string, textA: string, textB: string): CandidatePair {
  const use = (page: string, text: string, pageId: number) => {
    const r = ref({ image, page, pageId, caption: text });
    return useState(r);
  };
  return makeCandidate(tier, image, "caption", use(pageA, textA, 1), use(pageB, textB, 2));
}
