/**
 * The pivot key of an image met in HTML. Two spellings of one address must meet: the URL is
 * resolved against the page (or its `<base>`), WHATWG-normalised (scheme and host case, default
 * port, dot segments), stripped of its fragment and of the query parameters image CDNs use to
 * resize one picture (`?w=300`, `?resize=…`, Drupal's `itok`). A Wikimedia upload URL, thumbnail
 * or original, becomes the `File:` key the Wikipedia source emits for the same file (through the
 * same normalisation, wikitext/image-key.ts), so a crawl and a dump in one run meet on one image.
 */
import { normalizeImageKey } from "../../wikitext/image-key.ts";

export type ImageKeyVerdict = { key: string; url: string } | { drop: "data_uri" | "invalid_url" | "not_http_url" | "tracking_pixel" };

/** Query parameters that choose a size, crop or format of one picture on common image CDNs. */
const RESIZE_PARAMS = new Set([
  "w", "h", "width", "height", "resize", "fit", "crop", "quality", "q", "auto", "fm", "format", "dpr",
  "ixlib", "ixid", "itok", "ssl", "strip", "zoom", "sharpen", "scale", "size", "sz", "mw", "mh", "maxwidth", "maxheight",
]);

/** Hosts and paths of web beacons (analytics pixels that are images only by their tag). */
const BEACON_HOST = /(^|\.)(google-analytics\.com|doubleclick\.net|scorecardresearch\.com|quantserve\.com|bat\.bing\.com|pixel\.wp\.com|stats\.wp\.com|pixel\.quantserve\.com|sb\.scorecardresearch\.com)$|^(pixel|pixels|beacon|analytics|tracking?|tr)\./i;
const BEACON_PATH = /\/(pixel|beacon|tracking?|spacer|blank|clear|transparent|1x1|pixel_?1x1)\.(gif|png)$|\/b\/ss\/|^\/tr\/?$/i;

/** `/wikipedia/<project>/[thumb/]<h>/<hh>/<File name>[/<N>px-…]` on upload.wikimedia.org. */
const WIKIMEDIA_UPLOAD = /^\/(?:wikipedia|wiktionary|wikibooks|wikinews|wikiquote|wikisource|wikiversity|wikivoyage)\/[^/]+\/(?:thumb\/|archive\/)?[0-9a-f]\/[0-9a-f]{2}\/(?:\d{14}!)?([^/]+)/;

/** The Commons file key of a Wikimedia upload URL, or null if the URL is not one. */
export function wikimediaFileKey(url: URL): string | null {
  if (url.hostname !== "upload.wikimedia.org") return null;
  const m = WIKIMEDIA_UPLOAD.exec(url.pathname);
  if (!m) return null;
  let name: string;
  try {
    name = decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
  return normalizeImageKey(name);
}

export function isTrackingUrl(url: URL): boolean {
  return BEACON_HOST.test(url.hostname) || BEACON_PATH.test(url.pathname);
}

/** The normalised URL and pivot key of an image given by `raw` on a page whose base URL is `base`. */
export function imageKey(raw: string, base: string | URL): ImageKeyVerdict {
  const s = raw.trim();
  if (/^data:/i.test(s)) return { drop: "data_uri" };
  let url: URL;
  try {
    url = new URL(s, base);
  } catch {
    return { drop: "invalid_url" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { drop: "not_http_url" };
  // (a setter re-serialises the URL: called only when the address has a fragment, maybe an empty one,
  // which only a `#` in it can start: one resolved against the base never keeps the base's)
  if (s.includes("#")) url.hash = "";
  if (isTrackingUrl(url)) return { drop: "tracking_pixel" };
  const wiki = wikimediaFileKey(url);
  if (wiki) return { key: wiki, url: url.href };
  if (url.search) {
    for (const name of [...url.searchParams.keys()]) if (RESIZE_PARAMS.has(name.toLowerCase())) url.searchParams.delete(name);
    if ([...url.searchParams.keys()].length === 0) url.search = "";
  }
  const href = url.href;
  return { key: href, url: href };
}

/**
 * The largest candidate of a `srcset` (`url 640w, url 2x`): widths beat densities, a candidate
 * without a descriptor counts as 1x. Null when the attribute names no URL.
 */
export function largestSrcsetCandidate(srcset: string): string | null {
  let best: string | null = null;
  let bestScore = -1;
  // candidates are separated by commas that follow whitespace-free URLs; a data: URL may hold commas
  for (const m of srcset.matchAll(/\s*([^\s,][^\s]*?)(?:\s+([\d.]+)([wxh]))?\s*(?:,|$)/g)) {
    const url = m[1];
    if (!url) continue;
    const n = m[2] ? Number(m[2]) : 1;
    const score = m[3] === "w" ? 1e6 + n : n;
    if (score > bestScore) {
      bestScore = score;
      best = url;
    }
  }
  return best;
}
