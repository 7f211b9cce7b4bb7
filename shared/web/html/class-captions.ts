/**
 * Figures that a CMS writes without `<figure>`: the container and its caption are told by their
 * classes. MediaWiki's thumbnails before 1.40 (`thumbinner` … `thumbcaption`, a gallery's `gallerybox`
 * … `gallerytext`: every Wikipedia mirror in older crawls) and WordPress' classic caption shortcode
 * in themes without HTML5 captions (`wp-caption` … `wp-caption-text`). Their caption is the image's
 * caption in the strict sense, as a figcaption is: typed as one, it meets the Wikipedia dump's caption
 * of the same `File:` key. The thesis reads `<figure>`/`<figcaption>` tags only (preset paper).
 */

const FIGURE_CLASSES = new Set(["thumbinner", "gallerybox", "wp-caption"]);
const CAPTION_CLASSES = new Set(["thumbcaption", "gallerytext", "wp-caption-text"]);

/** A test on a start tag's raw attribute text that every such container and caption passes (their attributes are then read). */
export const MAY_BE_CLASS_FIGURE = /thumbinner|thumbcaption|gallerybox|gallerytext|wp-caption/i;

/** Whether the element opens such a figure, or such a figure's caption, by its class; null when neither. */
export function classFigureRole(name: string, attributes: Readonly<Record<string, string>>): "figure" | "caption" | null {
  if (name === "figure" || name === "figcaption") return null;
  const cls = attributes["class"];
  if (cls === undefined || cls === "") return null;
  let role: "figure" | "caption" | null = null;
  for (const c of cls.split(/\s+/)) {
    const lower = c.toLowerCase();
    if (CAPTION_CLASSES.has(lower)) return "caption";
    if (FIGURE_CLASSES.has(lower)) role = "figure";
  }
  return role;
}

/** Whether a run reads such figures: `extraction.classCaptions` when set, else every preset but the paper's. */
export function readsClassCaptions(config: { preset: string; extraction: { classCaptions?: boolean | undefined } }): boolean {
  return config.extraction.classCaptions ?? config.preset !== "paper";
}
