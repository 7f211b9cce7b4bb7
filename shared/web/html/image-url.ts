/**
 * The pivot key of an image met in HTML. Two spellings of one address must meet: the URL is
 * resolved against the page (or its `<base>`), WHATWG-normalised (scheme and host case, default
 * port, dot segments), stripped of its fragment and of the query parameters image CDNs use to
 * resize one picture (`?w=300`, `?resize=…`, Drupal's `itok`). A Wikimedia upload URL, thumbnail
 * or original, becomes the `File:` key the Wikipedia source emits for the same file (through the
 * same normalisation, wikitext/image-key.ts), so a crawl and a dump in one run meet on one image.
 */
import { normalizeImageKey } from "../../wikitext/image-key.ts";

export type ImageKeyVerdict = { key: string; url: string } | { drop: "data_uri" | "invalid_url" | "not_http_url" | "tracking_pixel" | "placeholder" };

/**
 * Where an `<img>` names its picture, most specific first: the largest candidate of `srcset` (or a
 * lazy loader's `data-srcset`), the lazy loaders' attributes, `src`, then an enclosing `<picture>`'s
 * source. Each is tried in turn until one gives a key: a lazy page's `src` (and often its `srcset`)
 * is a data: URL or a spinner that stands for every image of the page.
 */
export function imageUrlCandidates(a: Record<string, string>, picture: string | null): (string | null)[] {
  const set = (v: string | undefined) => (v ? largestSrcsetCandidate(v) : null);
  return [
    set(a["srcset"]),
    set(a["data-srcset"]),
    set(a["data-lazy-srcset"]),
    ...LAZY_ATTRIBUTES.map((n) => a[n] || null),
    a["src"] || null,
    picture,
  ];
}

/** Attributes lazy loaders keep the real address in (lazysizes, jQuery lazyload, WordPress plugins, slick, Webflow). */
const LAZY_ATTRIBUTES = ["data-src", "data-original", "data-lazy-src", "data-url", "data-lazy", "data-original-src", "lazy-src", "data-hi-res-src", "data-full-src"];

/** A spinner or blank image that stands in for the real one until a script swaps it. */
const PLACEHOLDER_FILE = /\/(?:ajax-loader|loader|loading|spinner|placeholder|lazy-?placeholder|lazyload|blank|spacer|grey|gray|transparent|empty|dummy)(?:[-_]?\d+(?:x\d+)?)?\.(?:gif|png|svg|jpe?g|webp)$/i;

/**
 * An address a script was to fill in and never did: a JavaScript value written out (`src="null"`,
 * `"undefined"`, `"[object Object]"`) or a template left unrendered (`{{ post.image }}`, `${src}`,
 * `<%= url %>`, raw or percent-encoded). A browser requests `./null` and gets no picture; as a key it
 * would join every such page of a site into one image.
 */
const UNFILLED_VALUE = /^(?:null|undefined|false|true|nan|none|\[object object\])$/i;
const UNRENDERED_TEMPLATE = /\{\{|\}\}|\$\{|<%|%7b%7b|%7d%7d|%24%7b|%3c%25/i;

/**
 * Query parameters that choose a size, crop or format of one picture on common image CDNs. Some
 * names are generic (`q`, `size`, `format`, `w`): a `/render?q=cat` and `/render?q=dog` are two
 * images, so those are dropped only when their value is a size, a quality or a format (`q=75`,
 * `size=large`, `format=webp`, `w=300px`); the rest are never anything else and are always dropped.
 */
const RESIZE_PARAMS = new Set(["resize", "fit", "crop", "quality", "auto", "fm", "dpr", "ixlib", "ixid", "itok", "ssl", "strip", "zoom", "sharpen", "scale"]);
const RESIZE_PARAMS_IF_SIZE = new Set(["w", "h", "width", "height", "q", "format", "size", "sz", "mw", "mh", "maxwidth", "maxheight"]);
/** A value that sizes or formats a picture: numbers (300, 0.75, 300x200, 50%, 300px) or a size or format word. */
const SIZE_VALUE = /^(?:[\d.]+(?:px|%)?(?:[x,*:][\d.]+(?:px|%)?)?|thumb(?:nail)?|small|medium|large|xlarge|x?x?l|[sml]|full|original|orig|webp|avif|jpe?g|png|gif|auto|compress)$/i;

const isResizeParam = (name: string, value: string) => {
  const n = name.toLowerCase();
  return RESIZE_PARAMS.has(n) || (RESIZE_PARAMS_IF_SIZE.has(n) && SIZE_VALUE.test(value.trim()));
};

/** Jetpack's Photon proxy: `https://i0.wp.com/example.org/wp-content/x.jpg?resize=…` serves `https://example.org/wp-content/x.jpg`. */
const PROXY_HOST = /^i[0-3]\.wp\.com$/;

function proxiedUrl(url: URL): URL | null {
  const m = /^\/([a-z0-9.-]+\.[a-z]{2,})(\/.*)$/i.exec(url.pathname);
  if (!m) return null;
  try {
    const inner = new URL(`https://${m[1]}${m[2]}`);
    inner.search = url.search;
    return inner;
  } catch {
    return null;
  }
}

/** Gravatar's size, default-picture and rating parameters (`?s=49&d=mm&r=g`): one avatar, one key. */
const GRAVATAR_HOST = /(^|\.)gravatar\.com$/;
const GRAVATAR_PARAMS = new Set(["s", "size", "d", "default", "r", "rating", "f", "forcedefault"]);

/**
 * Shopify's image CDN (cdn.shopify.com, and a shop's own /cdn/shop/ path): `v=` is the upload's
 * version stamp and a `_800x`, `_300x300_crop_center`, `_grande` or `@2x` suffix on the file name is
 * a size of the same picture (`shirt_800x.jpg?v=1612345678` is `shirt.jpg`).
 */
const SHOPIFY_SIZE = /_(?:\d+x\d*|x\d+|%7Bwidth%7Dx|pico|icon|thumb|small|compact|medium|large|grande|original|master)(?:_crop_[a-z]+)?(?:@\d+x)?(?=\.[a-z0-9]+$)/i;
const SHOPIFY_PARAMS = new Set(["v", "crop"]);
const isShopify = (url: URL) => (url.hostname === "cdn.shopify.com" && url.pathname.startsWith("/s/files/")) || url.pathname.startsWith("/cdn/shop/");

/** WordPress' generated sizes of an upload and its big-image copy (`boat-300x200.jpg`, `boat-scaled.jpg`): sizes of `boat.jpg`. */
const WORDPRESS_SIZE = /(?:-(?:\d{1,5}x\d{1,5}|scaled))+(?=\.[a-z0-9]+$)/i;
const isWordPressUpload = (url: URL) => url.pathname.includes("/wp-content/uploads/");

/**
 * Blogger's and Google Photos' sizes of one picture: a size folder before the file name on
 * bp.blogspot.com and blogger.googleusercontent.com (`/s1600/`, `/w400-h300/`, `/s72-c/`, `/d/`), a
 * `=s1600` / `=w400-h300-c` suffix on googleusercontent.com.
 */
const GOOGLE_IMAGE_HOST = /^(?:\d+\.bp\.blogspot\.com|blogger\.googleusercontent\.com|lh\d\.googleusercontent\.com|lh\d\.ggpht\.com)$/;
const GOOGLE_SIZE_FOLDER = /\/(?:[swh]\d{1,5}(?:-[a-z0-9]+)*|d)(?=\/[^/]+$)/i;
const GOOGLE_SIZE_SUFFIX = /=(?:[swh]\d{1,5}|d)(?:-[a-z0-9]+)*$/i;

/** Medium's image CDN: `/v2/resize:fit:1400/format:webp/1*abc.jpeg`, `/max/700/1*abc.jpeg` on miro or cdn-images-N are `1*abc.jpeg`. */
const MEDIUM_HOST = /^(?:miro\.medium\.com|cdn-images-\d\.medium\.com)$/;
const MEDIUM_IMAGE_ID = /\/(\d\*[\w-]+(?:\.[a-z0-9]+)?)$/i;

/** One picture's key whatever size a blog platform's address asks for (WordPress, Blogger, Medium), or the URL as it is. */
function platformOriginal(url: URL): void {
  if (isWordPressUpload(url) && WORDPRESS_SIZE.test(url.pathname)) url.pathname = url.pathname.replace(WORDPRESS_SIZE, "");
  else if (GOOGLE_IMAGE_HOST.test(url.hostname)) {
    if (GOOGLE_SIZE_SUFFIX.test(url.pathname)) url.pathname = url.pathname.replace(GOOGLE_SIZE_SUFFIX, "");
    else if (GOOGLE_SIZE_FOLDER.test(url.pathname)) url.pathname = url.pathname.replace(GOOGLE_SIZE_FOLDER, "");
  } else if (MEDIUM_HOST.test(url.hostname)) {
    const id = MEDIUM_IMAGE_ID.exec(url.pathname);
    if (id) {
      url.hostname = "miro.medium.com";
      url.pathname = `/${id[1]}`;
    }
  }
}

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
  // "#" (or "#x") names the page itself, not a picture
  if (s.startsWith("#")) return { drop: "invalid_url" };
  if (UNFILLED_VALUE.test(s) || UNRENDERED_TEMPLATE.test(s)) return { drop: "placeholder" };
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
  if (PLACEHOLDER_FILE.test(url.pathname)) return { drop: "placeholder" };
  // an image CDN proxying another host's picture (Jetpack's i0.wp.com/<host>/<path>): the picture's own address is the key
  const proxied = PROXY_HOST.test(url.hostname) ? proxiedUrl(url) : null;
  if (proxied !== null) url = proxied;
  const wiki = wikimediaFileKey(url);
  if (wiki) return { key: wiki, url: url.href };
  // (the address as the page gives it, a proxy's aside; the key drops what only sizes it)
  const resolved = url.href;
  platformOriginal(url);
  const shopify = isShopify(url);
  if (shopify && SHOPIFY_SIZE.test(url.pathname)) url.pathname = url.pathname.replace(SHOPIFY_SIZE, "");
  if (url.search) {
    const gravatar = GRAVATAR_HOST.test(url.hostname);
    const kept = [...url.searchParams].filter(([name, value]) => !isResizeParam(name, value) && !(gravatar && GRAVATAR_PARAMS.has(name.toLowerCase())) && !(shopify && SHOPIFY_PARAMS.has(name.toLowerCase())));
    if (kept.length < [...url.searchParams].length) url.search = new URLSearchParams(kept).toString();
  }
  return { key: url.href, url: resolved };
}

/**
 * The largest candidate of a `srcset` (`url 640w, url 2x`): widths beat densities, a candidate
 * without a descriptor counts as 1x. Null when the attribute names no URL.
 */
export function largestSrcsetCandidate(srcset: string): string | null {
  let best: string | null = null;
  let bestScore = -1;
  for (const { url, descriptors } of srcsetCandidates(srcset)) {
    const d = descriptors.map((t) => /^([\d.]+)([wxh])$/i.exec(t)).find((m) => m !== null);
    const n = d ? Number(d[1]) : 1;
    const score = d?.[2]!.toLowerCase() === "w" ? 1e6 + n : n;
    if (score > bestScore) {
      bestScore = score;
      best = url;
    }
  }
  return best;
}

/**
 * The candidates of a srcset as the HTML standard splits them: a URL is a run of non-space
 * characters (commas inside it are its own, as in Cloudinary's `w_400,h_300` or a data: URL; commas
 * at its end separate), then descriptors up to the next comma outside parentheses.
 */
function* srcsetCandidates(srcset: string): Generator<{ url: string; descriptors: string[] }> {
  const space = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f";
  let i = 0;
  while (i < srcset.length) {
    while (i < srcset.length && (space(srcset[i]!) || srcset[i] === ",")) i++;
    if (i >= srcset.length) return;
    const start = i;
    while (i < srcset.length && !space(srcset[i]!)) i++;
    let url = srcset.slice(start, i);
    const descriptors: string[] = [];
    if (url.endsWith(",")) url = url.replace(/,+$/, "");
    else {
      let depth = 0;
      let token = "";
      for (; i < srcset.length; i++) {
        const c = srcset[i]!;
        if (c === "(") depth++;
        else if (c === ")") depth = Math.max(0, depth - 1);
        else if (c === "," && depth === 0) break;
        if (space(c) && depth === 0) {
          if (token) descriptors.push(token);
          token = "";
        } else token += c;
      }
      if (token) descriptors.push(token);
    }
    if (url) yield { url, descriptors };
  }
}
