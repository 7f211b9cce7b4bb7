/**
 * Elements whose text is no caption of an image outside them: text the page hides (the `hidden`
 * attribute, `display:none`, `visibility:hidden`, the screen-reader-only classes of the common CSS
 * frameworks and CMSs, as WordPress' "(opens in a new tab)") and the text of navigation and
 * controls (`<nav>`, `<button>`: "Next slide", "Share"). An image inside such an element is as
 * hidden as the text beside it (a carousel's slide, a closed tab), so the text still reaches the
 * captions of the images within: the extractor keeps it from every caption opened outside.
 */
import { hasMarkedClass } from "./class-marks.ts";

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
export const MAY_HIDE = /hidden|display|visibility|sr-only|d-none|invisible|screen-reader|show-for-sr|hide|credit|copyright|attribution/i;

/**
 * A class name that marks a photo credit (`credit`, `photo-credit`, `media-credit`, `c-figure__copyright`,
 * `imageCredit`, `attribution`): news sites and CMSs set the credit apart so that a stylesheet can show it
 * on its own line. "Photo: Jane Doe/Reuters" names who took the picture, not what it shows.
 */
const CREDIT_CLASS = /(?:^|[-_])(?:credits?|copyright|attribution)(?:$|[-_])/;
const CREDIT_CAMEL = /^[a-z]+(?:Credits?|Copyright|Attribution)$/;
/** `credit-card` (a shop's payment logos) and the like are no credit */
const NOT_CREDIT = /credit-?cards?/;

/** Whether the element is a photo credit (by its class), whose text is kept from the captions of images outside it. */
export function isCredit(attributes: Readonly<Record<string, string>>): boolean {
  return hasMarkedClass(attributes, CREDIT_CLASS, CREDIT_CAMEL, NOT_CREDIT);
}

/** Words that open a credit written into a caption's text: "Photograph: …", "Photo by …", "Credit: …", "Image: …". */
const CREDIT_WORD = String.raw`(?:photo(?:graph)?s?|image|picture|illustration|credits?|foto)`;
/** "Image: …", "Illustration: …" label a picture as often as they credit one: a credit only when it names an agency or a source ("Image: Getty Images", "Illustration: Jane Doe/NASA"). */
const LABEL_CREDIT = String.raw`(?:image|picture|illustration)\s*:(?=[^!?]*(?:/|©|\b(?:getty|reuters|ap|afp|epa|shutterstock|istock|alamy|courtesy|wikimedia|unsplash|nasa)\b))`;
/** A credit at the end, after a sentence's end or a separator: "… water. Photograph: Jane Doe/AP", "… sun | Photo by Jane Doe", "… dawn. © City Archive". */
const TRAILING_CREDIT = new RegExp(String.raw`(?:(?<=[.!?…”"’)\]])\s+|\s+[|–—]\s+)(?:(?:photo(?:graph)?s?|credits?|foto)\s*:|${CREDIT_WORD}\s+by\b|©|${LABEL_CREDIT})[^!?]{1,100}$`, "iu");
/** A caption that is a credit alone: "Photo by Someone on Unsplash", "Credit: …", "© …". */
const WHOLE_CREDIT = new RegExp(String.raw`^(?:photo(?:graph)?s?\s+by\b|credits?\s*:|©)[^!?]{1,100}$`, "iu");
/** A credit in brackets at the end: "(AP Photo/David J. Phillip)", "(Photo: Jane Doe/Reuters)", "(Image courtesy of NASA)". */
const BRACKETED_CREDIT = new RegExp(String.raw`\s*[(\[](?:[^()\[\]]{0,40}\b${CREDIT_WORD}\b\s*(?:[:/]|by\b|courtesy\b)|©|credits?\s*:)[^()\[\]]{0,100}[)\]]\.?$`, "iu");

/** A caption's text without a photo credit written at its end (what is left may be empty: a caption that was only a credit). */
export function withoutCreditText(text: string): string {
  if (WHOLE_CREDIT.test(text)) return "";
  return text.replace(BRACKETED_CREDIT, "").replace(TRAILING_CREDIT, "").trim();
}

/** Whether a run keeps photo credits out of web captions: `extraction.dropCredits` when set, else every preset but the paper's (the thesis takes a figcaption whole). */
export function dropsCredits(config: { preset: string; extraction: { dropCredits?: boolean | undefined } }): boolean {
  return config.extraction.dropCredits ?? config.preset !== "paper";
}

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
