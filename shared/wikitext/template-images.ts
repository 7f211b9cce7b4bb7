/**
 * Which parameters of a template are images, and which caption/alt parameters belong to each.
 * Infoboxes name them in many ways (`image`, `image2`, `image_skyline`, `Ship image`, `logo`,
 * `photo1a`; `caption`, `caption2`, `image_caption`, `map_caption`, `Ship caption`), so keys are
 * compared in a spacing-free lower-case form and partners are looked up by a fixed list of spellings.
 */

/** Words that make a parameter an image slot when they are its last word (or `image` its first). */
export const IMAGE_WORD_LIST: readonly string[] = [
  "image", "img", "photo", "photograph", "picture", "pic", "logo", "map", "cover", "flag", "seal", "emblem",
  "insignia", "shield", "arms", "signature", "screenshot", "poster", "banner", "diagram", "portrait", "drawing", "artwork",
  "coatofarms", "marker",
];
const IMAGE_WORDS: ReadonlySet<string> = new Set(IMAGE_WORD_LIST);

/** Words that make an `image…` key a setting of the image rather than the image itself. */
const MODIFIER_WORDS = new Set([
  "caption", "alt", "size", "width", "height", "upright", "link", "class", "scale", "align", "position", "px",
  "text", "title", "desc", "description", "credit", "source", "label", "relief", "type", "style", "border", "frame",
]);

/** A parameter of one template call. */
export interface TemplateParam {
  /** normalised key (lower-case, `_` → space, collapsed) or null for a positional argument */
  key: string | null;
}

/** One image of a template: indices into the parameter list. */
export interface TemplateImagePick {
  image: number;
  caption: number | null;
  alt: number | null;
}

/**
 * Image slots no image word names, with their partners' spelling (keys spacing-free, lower-case); not
 * read under paper rules. {{Chembox}}: `ImageFile`, `ImageFile1`, `ImageFileL1`, `ImageFileR1` with
 * `ImageCaptionL1`, `ImageAltL1`; {{Infobox military unit}}: `identification_symbol_2` with
 * `identification_symbol_2_label` (its caption) and `identification_symbol_2_alt`.
 */
const NAMED_SLOTS: readonly { key: RegExp; partner: (suffix: string, partner: "caption" | "alt") => string }[] = [
  { key: /^imagefile([lr]?\d*)$/, partner: (n, p) => `image${p}${n}` },
  { key: /^identificationsymbol(\d*)$/, partner: (n, p) => `identificationsymbol${n}${p === "caption" ? "label" : p}` },
];

/** Word stem without a trailing index: `image2` → `image`, `photo1a` → `photo`. */
const stem = (w: string) => w.replace(/\d+[a-z]?$/, "");

/**
 * True when a normalised key names an image slot: one of its words is an image word (`image`, `image2`,
 * `image skyline`, `ship image`, `static image name`, `logo`, `photo1a`) and none is a setting word
 * (`image size`, `image caption`, `logo alt`).
 */
export function isImageKey(key: string, paperRules = false): boolean {
  if (!paperRules && NAMED_SLOTS.some((slot) => slot.key.test(key.replace(/ /g, "")))) return true;
  const stems = key.split(" ").map(stem);
  return stems.some((w) => IMAGE_WORDS.has(w)) && !stems.some((w) => MODIFIER_WORDS.has(w));
}

/** Spacing-free spellings of the caption (or alt) partner of an image key, most specific first. */
function partnerKeys(key: string, partner: "caption" | "alt", paperRules: boolean): string[] {
  const k = key.replace(/ /g, "");
  const out = [k + partner, `${k} ${partner}`.replace(/ /g, "")];
  for (const slot of paperRules ? [] : NAMED_SLOTS) {
    const m = slot.key.exec(k);
    if (m) out.unshift(slot.partner(m[1]!, partner)); // ImageFileL1 → ImageCaptionL1, before `caption1`
  }
  const indexed = /^(.*?)(\d+)([a-z]?)$/.exec(k);
  if (indexed) {
    const [, base, num, suffix] = indexed;
    out.push(`${partner}${num}${suffix}`, `${base}${partner}${num}${suffix}`, `${base}${num}${suffix}${partner}`);
  }
  if (k.startsWith("image") && k.length > 5 && !indexed) out.push(k.slice(5) + partner); // image_map → map_caption
  if (indexed && indexed[1]!.startsWith("image") && indexed[1]!.length > 5) out.push(`${indexed[1]!.slice(5)}${partner}${indexed[2]}${indexed[3]}`); // image_map1 → map_caption1
  if (k.endsWith("image") && k.length > 5) out.push(k.slice(0, -5) + partner); // Ship image → Ship caption
  const words = key.split(" ");
  if (words.length > 1 && !IMAGE_WORDS.has(stem(words[words.length - 1]!))) {
    out.push(words.slice(0, -1).join("") + partner); // static image name → static image caption
  }
  return out;
}

/**
 * Spacing-free keys of an infobox's main image, whose the generic caption is even after a logo: `image`,
 * and (not under paper rules) its old spellings, {{Infobox university}}'s `image_name`, `image_file`.
 */
const PAPER_MAIN_KEYS: ReadonlySet<string> = new Set(["image"]);
const MAIN_KEYS: ReadonlySet<string> = new Set(["image", "imagename", "imagefile"]);

/** Generic partners that go to the first image without a specific one. */
const GENERIC = { caption: ["caption", "imagecaption"], alt: ["alt", "imagealt"] };

/**
 * Image slots of a named-parameter template (infobox, {{multiple image}}, …) with their caption and
 * alt parameters. `isFile(i)` says whether parameter i's value really is a file (bare names must
 * have a media extension; a nested [[File:…]] counts too).
 */
export function pickTemplateImages(params: readonly TemplateParam[], isFile: (i: number) => boolean, captionKeys: readonly string[] = [], paperRules = false): TemplateImagePick[] {
  const byKey = new Map<string, number>();
  params.forEach((p, i) => {
    if (p.key !== null) byKey.set(p.key.replace(/ /g, ""), i); // later duplicates win, as in MediaWiki
  });
  const picks: TemplateImagePick[] = [];
  const used = new Set<number>();
  const find = (keys: string[]) => {
    for (const k of keys) {
      const i = byKey.get(k);
      if (i !== undefined && !used.has(i)) return i;
    }
    return null;
  };
  params.forEach((p, i) => {
    if (p.key === null || !isImageKey(p.key, paperRules) || byKey.get(p.key.replace(/ /g, "")) !== i || !isFile(i)) return;
    const caption = find(partnerKeys(p.key, "caption", paperRules));
    if (caption !== null) used.add(caption);
    const alt = find(partnerKeys(p.key, "alt", paperRules));
    if (alt !== null) used.add(alt);
    picks.push({ image: i, caption, alt });
  });
  for (const kind of ["caption", "alt"] as const) {
    // the generic caption is the main image's (`image`), when there is one, not a logo's or a flag's before it
    const mainKeys = paperRules ? PAPER_MAIN_KEYS : MAIN_KEYS;
    const main = picks.find((p) => p[kind] === null && mainKeys.has(params[p.image]!.key?.replace(/ /g, "") ?? ""));
    const free = main ?? picks.find((p) => p[kind] === null);
    if (!free) continue;
    const i = find(kind === "caption" ? [...GENERIC.caption, ...captionKeys] : GENERIC[kind]);
    if (i !== null) {
      free[kind] = i;
      used.add(i);
    }
  }
  return picks;
}

/**
 * `{{Gallery|File:A.jpg|Caption A|File:B.jpg|…|alt1=…}}`: positional files, each followed by an
 * optional caption; alt texts are `altN` for the N-th file.
 */
export function pickGalleryTemplateImages(params: readonly TemplateParam[], isFile: (i: number) => boolean): TemplateImagePick[] {
  const alts = new Map<string, number>();
  params.forEach((p, i) => {
    if (p.key !== null) alts.set(p.key.replace(/ /g, ""), i);
  });
  const positional = params.flatMap((p, i) => (p.key === null ? [i] : []));
  const picks: TemplateImagePick[] = [];
  for (let j = 0; j < positional.length; j++) {
    const i = positional[j]!;
    if (!isFile(i)) continue;
    const next = positional[j + 1];
    const caption = next !== undefined && !isFile(next) ? next : null;
    if (caption !== null) j++;
    picks.push({ image: i, caption, alt: alts.get(`alt${picks.length + 1}`) ?? null });
  }
  return picks;
}

/**
 * Templates that place images by position (1-based positional arguments): each image's argument, its
 * caption's (null: the template has one caption for all, given to none) and the names of its alt.
 */
const POSITIONAL_IMAGE_TEMPLATES: ReadonlyMap<string, readonly { image: number; caption: number | null; alt: readonly string[] }[]> = new Map([
  // {{double image|position|left image|left width|right image|right width|left caption|right caption}}
  ["double image", [{ image: 2, caption: 6, alt: ["left alt", "alt1"] }, { image: 4, caption: 7, alt: ["right alt", "alt2"] }]],
  // {{wide image|image|width|caption|alt=}}
  ["wide image", [{ image: 1, caption: 3, alt: ["alt"] }]],
  ["wide image left", [{ image: 1, caption: 3, alt: ["alt"] }]],
  // {{triple image|position|image1|width1|image2|width2|image3|width3|caption}}: one caption for the three
  ["triple image", [{ image: 2, caption: null, alt: ["alt1"] }, { image: 4, caption: null, alt: ["alt2"] }, { image: 6, caption: null, alt: ["alt3"] }]],
]);

export function isPositionalImageTemplate(name: string): boolean {
  return POSITIONAL_IMAGE_TEMPLATES.has(name);
}

/** The images of a positional image template (see POSITIONAL_IMAGE_TEMPLATES). */
export function pickPositionalTemplateImages(name: string, params: readonly TemplateParam[], isFile: (i: number) => boolean): TemplateImagePick[] {
  const spec = POSITIONAL_IMAGE_TEMPLATES.get(name) ?? [];
  const positional = params.flatMap((p, i) => (p.key === null ? [i] : []));
  const named = new Map<string, number>();
  params.forEach((p, i) => {
    if (p.key !== null) named.set(p.key, i);
  });
  const picks: TemplateImagePick[] = [];
  for (const slot of spec) {
    const i = positional[slot.image - 1];
    if (i === undefined || !isFile(i)) continue;
    const caption = slot.caption === null ? undefined : positional[slot.caption - 1];
    const alt = slot.alt.map((k) => named.get(k)).find((j) => j !== undefined);
    picks.push({ image: i, caption: caption ?? null, alt: alt ?? null });
  }
  return picks;
}

/** Templates whose image's caption is named otherwise: {{CSS image crop|Image=…|Description=…}}. */
export const CAPTION_KEYS_OF: ReadonlyMap<string, readonly string[]> = new Map([
  ["css image crop", ["description"]],
  ["css crop", ["description"]],
]);

/** Template names whose positional arguments are gallery entries. */
export const GALLERY_TEMPLATES: ReadonlySet<string> = new Set(["gallery", "image gallery"]);

/**
 * `{{Image frame|content=…|caption=…}}`: a frame around any content (a file link, a labelled map's
 * {{Image label begin|image=…}}); its caption is the one image's the content shows. Not read under
 * paper rules.
 */
export const FRAME_TEMPLATES: ReadonlySet<string> = new Set(["image frame"]);
