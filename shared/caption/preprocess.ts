/**
 * Caption preprocessing (docs/method.md "Caption preprocessing"): the text every caption filter and the
 * output see. Unlike the reference (ASCII whitespace only), Unicode spaces such as NBSP are
 * normalised too, because wikitext `&nbsp;` decodes to U+00A0 and would otherwise split "equal" captions.
 */

// Line/paragraph separators and every Unicode space separator, plus ASCII controls used as spaces.
const WHITESPACE_RUN = /[\s\u0085\u180E\u2028\u2029]+/gu;
// Controls (Cc), format chars (Cf: zero-width space/joiners, BOM, bidi marks, soft hyphen),
// unassigned/private-use/surrogates. Tabs and line breaks are matched first as whitespace.
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}]/gu;
const ALREADY_CLEAN = /^(?:[\x21-\x7e]+ )*[\x21-\x7e]+$/;
const SPACE_LIKE_CONTROL = /[\t\n\v\f\r\u0085\u2028\u2029]/g;

/** line breaks → space, drop non-printable/control/zero-width chars, all Unicode whitespace (incl. NBSP) collapsed to one space, trimmed. */
export function preprocessCaption(text: string): string {
  if (ALREADY_CLEAN.test(text)) return text; // the common case: printable ASCII, single spaces, trimmed
  return text
    .replace(SPACE_LIKE_CONTROL, " ")
    .replace(NON_PRINTABLE, "")
    .replace(WHITESPACE_RUN, " ")
    .trim();
}
