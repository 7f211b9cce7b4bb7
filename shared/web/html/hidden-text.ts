/**
 * Elements whose text is no caption of an image outside them: text the page hides (the `hidden`
 * attribute, `display:none`, `visibility:hidden`, the screen-reader-only classes of the common CSS
 * frameworks and CMSs, as WordPress' "(opens in a new tab)") and the text of navigation and
 * controls (`<nav>`, `<button>`: "Next slide", "Share"). An image inside such an element is as
 * hidden as the text beside it (a carousel's slide, a closed tab), so the text still reaches the
 * captions of the images within: the extractor keeps it from every caption opened outside.
 */

/** Elements whose text is the page's navigation or controls, never a description of a picture. */
const NAVIGATION_TAGS = new Set(["nav", "button"]);

/** Class names that hide an element from sight (Bootstrap, Tailwind, WordPress, Drupal, Foundation, GOV.UK). */
const HIDING_CLASSES = new Set([
  "hidden", "d-none", "invisible", "is-hidden", "hide",
  "sr-only", "visually-hidden", "visuallyhidden", "screen-reader-text", "screen-reader-only",
  "element-invisible", "show-for-sr", "govuk-visually-hidden", "a11y-hidden", "u-hidden", "u-visually-hidden",
]);

const HIDING_STYLE = /(?:^|[;\s])(?:display\s*:\s*none|visibility\s*:\s*hidden)\b/i;

/**
 * A test on a start tag's raw attribute text that every hiding tag passes (its attributes are then
 * read; a tag that fails it cannot hide text, and its attributes need not be parsed).
 */
export const MAY_HIDE = /hidden|display|visibility|sr-only|d-none|invisible|screen-reader|show-for-sr|hide/i;

/** Whether the element's text is kept from the captions of images outside it. */
export function hidesText(name: string, attributes: Readonly<Record<string, string>>): boolean {
  if (NAVIGATION_TAGS.has(name)) return true;
  if (attributes["hidden"] !== undefined) return true;
  const style = attributes["style"];
  if (style !== undefined && HIDING_STYLE.test(style)) return true;
  const cls = attributes["class"];
  if (cls !== undefined && cls !== "") {
    for (const c of cls.split(/\s+/)) if (HIDING_CLASSES.has(c.toLowerCase())) return true;
  }
  return false;
}
