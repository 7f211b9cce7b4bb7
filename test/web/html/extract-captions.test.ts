/** Caption types and image URLs in crafted HTML: one rule per case, and bounds on hostile pages. */
import { describe, expect, it } from "vitest";
import { extractCaptions } from "../../../shared/web/html/extract-captions.ts";
import { imageKey, largestSrcsetCandidate } from "../../../shared/web/html/image-url.ts";
import { extractImageRefs } from "../../../shared/wikitext/extract-images.ts";
import { dropsCredits } from "../../../shared/web/html/hidden-text.ts";
import { readsClassCaptions } from "../../../shared/web/html/class-captions.ts";
import { resolveConfig } from "../../../shared/core/config.ts";

const PAGE = "https://example.org/dir/page.html";
const caps = (html: string) => extractCaptions(html, PAGE).captions.map((c) => [c.type, c.text, c.image]);

describe("caption types", () => {
  it("alt and title are separate types; an empty alt is no caption", () => {
    expect(caps('<img src="a.jpg" alt=" A  red&amp;blue kite " title="Kite, 2019"><img src="b.jpg" alt="">')).toEqual([
      ["alt", "A red&blue kite", "https://example.org/dir/a.jpg"],
      ["title", "Kite, 2019", "https://example.org/dir/a.jpg"],
    ]);
  });

  it("figcaption before or after the image; nested figures take their own", () => {
    expect(caps('<figure><figcaption>Before</figcaption><img src="/a.jpg"></figure><figure><img src="/b.jpg"><figure><img src="/c.jpg"><figcaption>Inner</figcaption></figure><figcaption>Outer <b>bold</b></figcaption></figure>')).toEqual([
      ["figcaption", "Before", "https://example.org/a.jpg"],
      ["figcaption", "Outer bold", "https://example.org/b.jpg"],
      ["figcaption", "Inner", "https://example.org/c.jpg"],
    ]);
  });

  it("nearby text is looked for past two blocks without text at most, and text around several images is none's", () => {
    // an article's image three empty blocks deep: the article's text is not its caption
    expect(caps(`<article><p>An article about the harbour and its boats.</p><div><div><div><p><img src="/deep.jpg"></p></div></div></div></article>`)).toEqual([]);
    expect(extractCaptions(`<article><p>An article about the harbour.</p><div><div><div><p><img src="/deep.jpg"></p></div></div></div></article>`, PAGE).dropped.get("nearby_too_far")).toBe(1);
    // a card: the image's cell is empty, the card holds the text (one block out)
    expect(caps('<div class="card"><div class="img"><img src="/c.jpg"></div><p>Fishing boats at dawn</p></div>')).toEqual([["nearby", "Fishing boats at dawn", "https://example.org/c.jpg"]]);
    // two avatars side by side (soldaini.net): the one paragraph is about neither
    const two = '<div><div id="front"><img src="/me.webp"></div><div id="back"><img src="/alt.webp"><p>DALL-E 2 generation (April 2022)</p></div></div>';
    expect(caps(two)).toEqual([["nearby", "DALL-E 2 generation (April 2022)", "https://example.org/alt.webp"]]);
    expect(caps('<p>Left: <img src="/l.jpg"> and right: <img src="/r.jpg"></p>')).toEqual([]);
  });

  it("a gallery of figures (WordPress' block gallery): its caption goes to every image without its own", () => {
    const gallery = '<figure class="wp-block-gallery"><figure class="wp-block-image"><img src="/h1.jpg" alt="Boats"></figure><figure class="wp-block-image"><img src="/h2.jpg" alt="Nets"><figcaption>Nets drying</figcaption></figure><figcaption class="blocks-gallery-caption">Scenes from the harbour</figcaption></figure>';
    expect(caps(gallery).filter((c) => c[0] === "figcaption")).toEqual([
      ["figcaption", "Scenes from the harbour", "https://example.org/h1.jpg"],
      ["figcaption", "Nets drying", "https://example.org/h2.jpg"],
    ]);
  });

  it("captions marked by class where a CMS writes no <figure>: MediaWiki's thumbcaption and gallerytext, WordPress' classic wp-caption-text are figcaptions (nearby under preset paper)", () => {
    // a Wikipedia mirror's thumbnail as MediaWiki wrote it before 1.40: its caption meets the dump's for the same File: key
    const thumb = '<p>The harbour.</p><div class="thumb tright"><div class="thumbinner" style="width:222px;"><a href="/wiki/File:Boat.jpg" class="image"><img alt="" src="//upload.wikimedia.org/wikipedia/commons/thumb/a/ab/Boat.jpg/220px-Boat.jpg" width="220" height="147" class="thumbimage"></a><div class="thumbcaption"><div class="magnify"><a href="/wiki/File:Boat.jpg" class="internal" title="Enlarge"></a></div>A fishing boat off the <a href="/wiki/Coast">coast</a></div></div></div>';
    expect(caps(thumb)).toEqual([["figcaption", "A fishing boat off the coast", "File:Boat.jpg"]]);
    const gallery = '<ul class="gallery mw-gallery-traditional"><li class="gallerybox" style="width: 155px"><div class="thumb" style="width: 150px;"><a href="/wiki/File:Net.jpg" class="image"><img alt="" src="//upload.wikimedia.org/wikipedia/commons/thumb/1/1c/Net.jpg/120px-Net.jpg" width="120" height="90"></a></div><div class="gallerytext"><p>Nets drying<br>in the sun</p></div></li><li class="gallerybox"><div class="thumb"><img src="//upload.wikimedia.org/wikipedia/commons/thumb/2/2c/Pier.jpg/120px-Pier.jpg" width="120" height="90"></div><div class="gallerytext"></div></li></ul>';
    expect(caps(gallery)).toEqual([["figcaption", "Nets drying in the sun", "File:Net.jpg"]]);
    const wp = '<div id="attachment_12" style="width: 310px" class="wp-caption aligncenter"><a href="/big.jpg"><img aria-describedby="caption-attachment-12" class="size-medium wp-image-12" src="/wp-content/uploads/2019/04/boat-300x200.jpg" alt="Boats" width="300" height="200"></a><p id="caption-attachment-12" class="wp-caption-text">Fishing boats in the harbour at dawn</p></div><p>The article goes on.</p>';
    expect(caps(wp)).toEqual([["alt", "Boats", "https://example.org/wp-content/uploads/2019/04/boat.jpg"], ["figcaption", "Fishing boats in the harbour at dawn", "https://example.org/wp-content/uploads/2019/04/boat.jpg"]]);
    // a caption class outside its container, or a container without one, is no figure: the nearby rule reads it
    expect(caps('<div class="post"><img src="/x.jpg"><p class="wp-caption-text">Loose caption</p></div>')).toEqual([["nearby", "Loose caption", "https://example.org/x.jpg"]]);
    expect(caps('<div class="wp-caption"><img src="/y.jpg"><p>Just a paragraph</p></div>')).toEqual([["nearby", "Just a paragraph", "https://example.org/y.jpg"]]);
    // unclosed markup: the container closes where the parser closes it
    expect(caps('<div class="thumbinner"><img src="/z.jpg"><div class="thumbcaption">Cut short')).toEqual([["figcaption", "Cut short", "https://example.org/z.jpg"]]);
    // the paper's rule: figure and figcaption tags only
    expect(extractCaptions(thumb, PAGE, { classCaptions: false }).captions.map((c) => [c.type, c.text])).toEqual([["nearby", "A fishing boat off the coast"]]);
    for (const html of [thumb, gallery, wp]) expect(extractCaptions(html, PAGE, { skipInert: false }).captions).toEqual(extractCaptions(html, PAGE).captions);
    expect(readsClassCaptions(resolveConfig({}))).toBe(true);
    expect(readsClassCaptions(resolveConfig({ preset: "paper" }))).toBe(false);
    expect(readsClassCaptions(resolveConfig({ preset: "paper", extraction: { classCaptions: true } }))).toBe(true);
    expect("classCaptions" in resolveConfig({}).extraction).toBe(false);
  });

  it("a <figure> with one image and no <figcaption>: a block marked as its caption, else its only text block, is its figcaption (nearby under preset paper)", () => {
    const img = (c: string) => `https://example.org/${c}.jpg`;
    // Drupal and hand-written themes: the caption in a div or p (the open defect's repro)
    expect(caps('<figure class="image"><img src="/fd.jpg"><div class="caption">Caption in a div</div></figure><p>x</p>')).toEqual([["figcaption", "Caption in a div", img("fd")]]);
    // Bootstrap's figure-caption on a div, a span marked as the caption, a caption before the image, an image in a link and a wrapper
    expect(caps('<figure class="figure"><img src="/bs.jpg" class="figure-img img-fluid"><div class="figure-caption text-center">A caption on a div</div></figure>')).toEqual([["figcaption", "A caption on a div", img("bs")]]);
    expect(caps('<figure><a href="/big.jpg"><img src="/sp.jpg"></a><span class="image-caption">Nets drying in the sun</span></figure>')).toEqual([["figcaption", "Nets drying in the sun", img("sp")]]);
    expect(caps('<figure><p class="photo__caption">Before the image</p><div class="wrap"><img src="/bf.jpg"></div></figure>')).toEqual([["figcaption", "Before the image", img("bf")]]);
    // the marked block wins over other text in the figure; a caption class is read as the figcaption only inside a <figure>
    expect(caps('<figure><img src="/mk.jpg"><h3>Harbour</h3><p class="caption">Boats at dawn</p><p>More text</p></figure>')).toEqual([["figcaption", "Boats at dawn", img("mk")]]);
    // no class: the figure's only text block is its caption, words separated at block edges
    expect(caps('<div><figure><img src="/ot.jpg"><p>The old <b>harbour</b><br>in 1910</p></figure><p>The article goes on.</p></div>')).toEqual([["figcaption", "The old harbour in 1910", img("ot")]]);
    expect(caps('<figure><img src="/dv.jpg"><div><p>Boats</p><p>at dawn</p></div></figure>')).toEqual([["figcaption", "Boats at dawn", img("dv")]]);
    // …but not when the figure holds other text, a heading (a card's title), or its text is the image's own block's
    expect(caps('<figure><img src="/tw.jpg"><p>One</p><p>Two</p></figure>')).toEqual([]);
    expect(caps('<figure><img src="/lo.jpg"><p>Caption</p>Loose words</figure>')).toEqual([]);
    expect(caps('<figure><img src="/hd.jpg"><div><h3>Product name</h3></div></figure>')).toEqual([]);
    expect(caps('<figure><p><img src="/in.jpg">Text around the image</p></figure>')).toEqual([["nearby", "Text around the image", img("in")]]);
    // more than one image: no text is any one's caption
    expect(caps('<figure><img src="/g1.jpg"><img src="/g2.jpg"><div class="caption">Two boats</div></figure>')).toEqual([]);
    // a figcaption stays the caption
    expect(caps('<figure><img src="/fc.jpg"><p class="caption">Not this</p><figcaption>The figcaption</figcaption></figure>')).toEqual([["figcaption", "The figcaption", img("fc")]]);
    // credits: a block marked as one is no caption (the caption beside it is); a text that is only a credit is none
    expect(caps('<figure><img src="/cr.jpg"><div class="caption">Boats at dawn</div><div class="caption credit">Photo: Jane Doe/Reuters</div></figure>')).toEqual([["figcaption", "Boats at dawn", img("cr")]]);
    expect(caps('<figure><img src="/c2.jpg"><p>Boats at dawn</p><span class="photo-credit">Jane Doe</span></figure>')).toEqual([["figcaption", "Boats at dawn", img("c2")]]);
    expect(caps('<figure><img src="/c3.jpg"><p>Photo by Jane Doe on Unsplash</p></figure>')).toEqual([]);
    // an image-only figure (al-folio's profile picture, dolma: kyleclo.com) has no caption
    expect(caps('<figure> <picture> <source class="responsive-img-srcset" media="(max-width: 480px)" srcset="/assets/img/kyle_lo_profile-480.webp"></source> <img src="/assets/img/kyle_lo_profile.jpg" class="img-fluid z-depth-1 rounded" width="auto" height="auto" alt="kyle_lo_profile.jpg"> </picture> </figure>')).toEqual([["alt", "kyle_lo_profile.jpg", "https://example.org/assets/img/kyle_lo_profile.jpg"]]);
    // the paper's rule: figure and figcaption tags only (the block's text is the image's nearby text)
    expect(extractCaptions('<div><figure><img src="/fd.jpg"><div class="caption">Caption in a div</div></figure></div>', PAGE, { classCaptions: false }).captions.map((c) => [c.type, c.text])).toEqual([["nearby", "Caption in a div"]]);
    for (const html of ['<article><p>' + "Long article text. ".repeat(60) + '</p><figure><img src="/sk.jpg"><p>Skipped?</p></figure></article>']) {
      expect(extractCaptions(html, PAGE).captions.map((c) => [c.type, c.text])).toEqual([["figcaption", "Skipped?"]]);
      expect(extractCaptions(html, PAGE, { skipInert: false }).captions).toEqual(extractCaptions(html, PAGE).captions);
    }
  });

  it("a <figure> whose caption is loose text or a heading in place of a <figcaption> (one image, no figcaption, no figure inside) takes it as its figcaption", () => {
    const img = (c: string) => `https://example.org/${c}.jpg`;
    // loose text, in a link or inline markup too, before or after the image (the open defect's repro)
    expect(caps('<div><figure><img src="/lt.jpg">Boats at dawn</figure><p>The article goes on.</p></div>')).toEqual([["figcaption", "Boats at dawn", img("lt")]]);
    expect(caps('<figure><a href="/big.jpg"><img src="/la.jpg"></a> The <b>old</b> harbour<br>in 1910 </figure>')).toEqual([["figcaption", "The old harbour in 1910", img("la")]]);
    expect(caps('<figure>Before the image <img src="/lb.jpg"></figure>')).toEqual([["figcaption", "Before the image", img("lb")]]);
    // a heading that is the figure's own child, holding all of its text
    expect(caps('<figure><img src="/h3.jpg"><h3>Boats at dawn</h3></figure>')).toEqual([["figcaption", "Boats at dawn", img("h3")]]);
    expect(caps('<figure><div class="frame"><img src="/h4.jpg"></div><h4>The <i>old</i> harbour</h4></figure>')).toEqual([["figcaption", "The old harbour", img("h4")]]);
    // a link around the image, the caption in a p (already read)
    expect(caps('<figure><a href="/big.jpg"><img src="/ap.jpg"></a><p>Nets drying</p></figure>')).toEqual([["figcaption", "Nets drying", img("ap")]]);
    // credits: marked ones are not the figure's text; one written at the end is cut; a text that is only a credit is none
    expect(caps('<figure><img src="/lc.jpg">Boats at dawn <span class="credit">Jane Doe</span></figure>')).toEqual([["figcaption", "Boats at dawn", img("lc")]]);
    expect(caps('<figure><img src="/le.jpg">Boats at dawn. Photograph: Jane Doe/AP</figure>')).toEqual([["figcaption", "Boats at dawn.", img("le")]]);
    expect(caps('<figure><img src="/lp.jpg">Photo by Jane Doe on Unsplash</figure>')).toEqual([]);
    // not: two images, a figure inside, a figcaption beside it, loose text beside a block, a heading beside other text or inside a block (a card's title)
    expect(caps('<figure><img src="/t1.jpg"><img src="/t2.jpg">Two boats</figure>')).toEqual([]);
    expect(caps('<figure><img src="/n1.jpg">Outer words<figure><img src="/n2.jpg"></figure></figure>')).toEqual([]);
    expect(caps('<figure><img src="/fc.jpg">Loose<figcaption>The figcaption</figcaption></figure>')).toEqual([["figcaption", "The figcaption", img("fc")]]);
    expect(caps('<figure><img src="/lo.jpg"><p>Caption</p>Loose words</figure>')).toEqual([]);
    expect(caps('<figure><img src="/hp.jpg"><h3>Title</h3><p>A description</p></figure>')).toEqual([]);
    expect(caps('<figure><img src="/hd.jpg"><div><h3>Product name</h3></div></figure>')).toEqual([]);
    // the length bound of a caption: too long is no caption, counted
    const long = extractCaptions(`<figure><img src="/ll.jpg">${"Too long. ".repeat(60)}</figure>`, PAGE);
    expect(long.captions).toEqual([]);
    expect(long.dropped.get("figcaption_too_long")).toBe(1);
    // the paper's rule: figure and figcaption tags only (the loose text is the image's nearby text)
    expect(extractCaptions('<div><figure><img src="/lt.jpg">Boats at dawn</figure></div>', PAGE, { classCaptions: false }).captions.map((c) => [c.type, c.text])).toEqual([["nearby", "Boats at dawn"]]);
  });

  it("a one-column table: the cell under the image cell is its caption; two columns are not", () => {
    const one = '<table><tr><td><img src="x.png"></td></tr><tr><td>The <i>caption</i> cell</td></tr></table>';
    expect(caps(one)).toEqual([["table", "The caption cell", "https://example.org/dir/x.png"]]);
    const two = '<table><tr><td><img src="x.png"></td><td>side</td></tr><tr><td>under</td><td></td></tr></table>';
    expect(caps(two).filter((c) => c[0] === "table")).toEqual([]);
  });

  it("a line break or a block edge inside a caption separates words (Common Crawl's whirlwind page, an infobox cell)", () => {
    const infobox = '<table><tr><td><img src="loc.png"></td></tr><tr><td><a href="/wiki/Castiella-La_Mancha" title="Castiella-La Mancha">Castiella-La Mancha</a><br /><a href="/wiki/Provincia_de_Guadalachara" title="Provincia de Guadalachara">Guadalachara</a><br /><a href="/wiki/La_Alcarria" class="mw-redirect" title="La Alcarria">La Alcarria</a></td></tr></table>';
    expect(caps(infobox)).toEqual([["table", "Castiella-La Mancha Guadalachara La Alcarria", "https://example.org/dir/loc.png"]]);
    expect(caps('<figure><img src="a.jpg"><figcaption><p>First line</p><p>second</p>third<br>fourth</figcaption></figure>')).toEqual([
      ["figcaption", "First line second third fourth", "https://example.org/dir/a.jpg"],
    ]);
    expect(caps('<div>A harbour<br>at dusk <img src="h.jpg"></div>')).toEqual([["nearby", "A harbour at dusk", "https://example.org/dir/h.jpg"]]);
    // inline markup still joins: no space is made inside a word
    expect(caps('<figure><img src="b.jpg"><figcaption>Ber<b>lin</b></figcaption></figure>')).toEqual([["figcaption", "Berlin", "https://example.org/dir/b.jpg"]]);
  });

  it("two sentences in inline elements of a figcaption (set on lines of their own by a stylesheet) are not glued; code, file names and domains are", () => {
    const fig = (inner: string) => caps(`<figure><img src="g.jpg"><figcaption>${inner}</figcaption></figure>`)[0]?.[1];
    // the open defect's repro, and the edge in either order, through a link, after a closing quote or bracket
    expect(fig("<span>First part.</span><span>Second part</span>")).toBe("First part. Second part");
    expect(fig("Boats at dawn!<em>Taken</em> in 1910")).toBe("Boats at dawn! Taken in 1910");
    expect(fig('<span>The old harbour (1910).</span><a href="/x">“Nets” drying</a>')).toBe("The old harbour (1910). “Nets” drying");
    expect(fig('<span>He said “Stop.”</span><span>Then</span>')).toBe("He said “Stop.” Then");
    expect(fig("<span>Was it here?</span><span>Yes</span>")).toBe("Was it here? Yes");
    // …and the class-marked figcaptions (MediaWiki's thumbcaption), a figure's caption block, its loose text
    expect(caps('<figure><img src="g.jpg"><div class="caption"><span>First part.</span><span>Second part</span></div></figure>')[0]?.[1]).toBe("First part. Second part");
    expect(caps('<figure><img src="g.jpg"><span>Boats at dawn.</span><span>Taken in 1910</span> <code>os.</code>Path</figure>')[0]?.[1]).toBe("Boats at dawn. Taken in 1910 os.Path");
    expect(caps('<div class="thumbinner"><img src="t.jpg"><div class="thumbcaption"><span>A map.</span><span>Scale 1:50</span></div></div>')[0]?.[1]).toBe("A map. Scale 1:50");
    expect(fig("<span>Second <b>part</b>!</span><i>Third</i>")).toBe("Second part! Third");
    // kept as written: a lower-case word after (a file name, a domain), text in code elements (highlighted
    // code: Rouge's spans in dolma's maria-antoniak.github.io pip post; Pygments' in a bare <pre>), an edge
    // with no element between, a space already there
    expect(fig("Run <b>setup.</b>py first")).toBe("Run setup.py first");
    expect(fig("<span>example.</span><span>org</span>")).toBe("example.org");
    expect(fig('<pre><code class="language-python" data-lang="python"><span class="n">setuptools</span><span class="p">.</span><span class="n">setup</span><span class="p">(</span></code></pre>')).toBe("setuptools.setup(");
    expect(fig('<pre><span class="n">os</span><span class="o">.</span><span class="n">Path</span></pre>')).toBe("os.Path");
    expect(fig("<code>System.</code><code>Console</code> and <code><span>React.</span><span>Component</span></code>")).toBe("System.Console and React.Component");
    expect(fig("Call <code>os.</code>Path here")).toBe("Call os.Path here");
    expect(fig("One.Two")).toBe("One.Two");
    expect(fig("<span>One. </span><span>Two</span>")).toBe("One. Two");
    // the paper's rule reads a figcaption whole as well
    expect(extractCaptions('<figure><img src="p.jpg"><figcaption><span>First part.</span><span>Second part</span></figcaption></figure>', PAGE, { classCaptions: false }).captions[0]?.text).toBe("First part. Second part");
  });

  it("a lazy page: the real address behind a placeholder srcset, a spinner src or another loader's attribute; '#' and spinners alone are no picture", () => {
    const img = (attrs: string) => caps(`<img ${attrs} alt="Flood water in the main street">`)[0]?.[2] ?? null;
    expect(img('src="data:image/gif;base64,R0lGOD" srcset="data:image/gif;base64,R0lGOD 1w" data-srcset="/flood-400.jpg 400w, /flood-800.jpg 800w"')).toBe("https://example.org/flood-800.jpg");
    expect(img('src="/wp-content/themes/shop/img/ajax-loader.gif" data-lazy="/media/1.jpg"')).toBe("https://example.org/media/1.jpg");
    expect(img('src="/img/grey.gif" data-original-src="/media/2.jpg"')).toBe("https://example.org/media/2.jpg");
    expect(img('src="/img/loading.gif"')).toBeNull();
    expect(img('src="#"')).toBeNull();
    // a picture whose name merely starts like a placeholder's is one
    expect(img('src="/photos/empty-beach.jpg"')).toBe("https://example.org/photos/empty-beach.jpg");
    expect(extractCaptions('<img src="/img/loading.gif" alt="x">', PAGE).dropped.get("placeholder")).toBe(1);
  });

  it("an AMP page's <amp-img> is its picture; the <img> in its <noscript> repeats it", () => {
    const amp = '<figure><amp-img src="/lake-1600.jpg" width="1600" height="900" layout="responsive" alt="A lake at dawn under mist"><noscript><img src="/lake-1600.jpg" alt="A lake at dawn under mist"></noscript></amp-img><figcaption>Lake Bled at dawn</figcaption></figure>';
    expect(caps(amp)).toEqual([
      ["alt", "A lake at dawn under mist", "https://example.org/lake-1600.jpg"],
      ["figcaption", "Lake Bled at dawn", "https://example.org/lake-1600.jpg"],
    ]);
  });

  it("what no reader sees leaves figcaption and nearby text too: controls, soft hyphens, zero-width spaces", () => {
    expect(caps('<figure><img src="a.jpg"><figcaption>Ctrl&#1;char soft&shy;ware zero&#8203;width</figcaption></figure>')).toEqual([["figcaption", "Ctrlchar software zerowidth", "https://example.org/dir/a.jpg"]]);
    expect(caps('<img src="b.jpg" alt="soft&shy;ware&#8203;">')).toEqual([["alt", "software", "https://example.org/dir/b.jpg"]]);
  });

  it("control characters in alt and title are dropped (a NUL, an escape), whitespace kept as spaces", () => {
    expect(caps('<img src="a.jpg" alt="A\u0000 red\u001b kite\tflying" title="x\u007f">')).toEqual([
      ["alt", "A red kite flying", "https://example.org/dir/a.jpg"],
      ["title", "x", "https://example.org/dir/a.jpg"],
    ]);
  });

  it("nearby text is the nearest enclosing block with text, only without a figcaption or table caption", () => {
    expect(caps('<div>A harbour at dusk <span><img src="h.jpg"></span></div>')).toEqual([["nearby", "A harbour at dusk", "https://example.org/dir/h.jpg"]]);
    expect(caps('<div>Outer text<div><p><img src="h.jpg"></p></div></div>')).toEqual([["nearby", "Outer text", "https://example.org/dir/h.jpg"]]);
    expect(caps('<p>Around</p><figure><img src="f.jpg"><figcaption>Cap</figcaption></figure>')).toEqual([["figcaption", "Cap", "https://example.org/dir/f.jpg"]]);
    expect(caps(`<p>${"long text ".repeat(100)}<img src="l.jpg"></p>`)).toEqual([]);
  });

  it("hidden text, navigation and buttons reach no caption outside them; inside them (a closed carousel slide) they are the image's own", () => {
    // WordPress' screen-reader text inside a figcaption, a share button and a hidden tooltip beside the image
    const post = '<figure class="wp-block-image"><img src="/hull.jpg"><figcaption>Hull of the ship <span class="screen-reader-text">(opens in a new tab)</span></figcaption></figure>';
    expect(caps(post)).toEqual([["figcaption", "Hull of the ship", "https://example.org/hull.jpg"]]);
    const card = '<div class="card"><img src="/tram.jpg"><p>Trams on the bridge<button>Share</button><span style="display: none">Loading comments</span><span hidden>x</span></p><nav><a href="/">Home</a> <a href="/next">Next</a></nav></div>';
    expect(caps(card)).toEqual([["nearby", "Trams on the bridge", "https://example.org/tram.jpg"]]);
    // a slide hidden until its turn: its image's caption is the slide's text
    const slide = '<div class="slide" style="display:none"><img src="/s2.jpg"><p>Second slide: the market</p></div><div class="slide" style="DISPLAY : none;"><figure><img src="/s3.jpg"><figcaption>The harbour</figcaption></figure></div>';
    expect(caps(slide)).toEqual([
      ["nearby", "Second slide: the market", "https://example.org/s2.jpg"],
      ["figcaption", "The harbour", "https://example.org/s3.jpg"],
    ]);
    // a table caption cell with a visually hidden label, and words that only look like hiding
    const table = '<table><tr><td><img src="m.png"></td></tr><tr><td><span class="sr-only">Map:</span> Districts of <span class="hidden-xs">Lyon</span><span aria-hidden="true">†</span></td></tr></table>';
    expect(caps(table)).toEqual([["table", "Districts of Lyon†", "https://example.org/dir/m.png"]]);
    // the same page read without skipping any span gives the same
    for (const html of [post, card, slide, table]) expect(extractCaptions(html, PAGE, { skipInert: false }).captions).toEqual(extractCaptions(html, PAGE).captions);
  });

  it("a photo credit marked as one (news sites' <span class=credit>, WordPress' media-credit) reaches no caption outside it; kept under preset paper (credits: false)", () => {
    const news = '<figure class="article-image"><picture><source media="(min-width: 800px)" srcset="https://cdn.example.com/img/1600/x.jpg 1600w"><img src="https://cdn.example.com/img/400/x.jpg" alt="Protesters gather"></picture><figcaption><span class="caption-text">Protesters gather outside parliament on Tuesday.</span> <span class="credit">Photo: Jane Doe/Reuters</span></figcaption></figure>';
    expect(caps(news)).toEqual([["alt", "Protesters gather", "https://cdn.example.com/img/400/x.jpg"], ["figcaption", "Protesters gather outside parliament on Tuesday.", "https://cdn.example.com/img/400/x.jpg"]]);
    // two spans a stylesheet sets on two lines: without the credit, no "store.Jane" is glued either
    const times = '<figure><div><picture><img src="https://static01.example.com/images/a.jpg" alt="A man walks"></picture></div><figcaption><span class="css-1">A man walks past the shuttered store.</span><span class="css-2 e13ogyst0"><span class="visually-hidden">Credit...</span><span class="photo-credit">Jane Doe for The Times</span></span></figcaption></figure>';
    expect(caps(times).filter((c) => c[0] === "figcaption")).toEqual([["figcaption", "A man walks past the shuttered store.", "https://static01.example.com/images/a.jpg"]]);
    // WordPress' classic caption with the Media Credit plugin, camelCase and BEM names
    const wp = '<div id="attachment_7" class="wp-caption alignnone"><img src="/wp-content/uploads/2020/05/dock.jpg" alt=""><span class="media-credit-container"><span class="media-credit">John Roe</span></span><p class="wp-caption-text">The old dock at low tide</p></div>';
    expect(caps(wp)).toEqual([["figcaption", "The old dock at low tide", "https://example.org/wp-content/uploads/2020/05/dock.jpg"]]);
    const bem = '<figure><img src="/m.jpg"><figcaption><p>Market day in the square</p><small class="c-figure__copyright">© City Archive</small><em class="imageCredit">AP</em> <span class="attribution">CC BY-SA 4.0</span></figcaption></figure>';
    expect(caps(bem)).toEqual([["figcaption", "Market day in the square", "https://example.org/m.jpg"]]);
    // words that only look like one: a shop's credit-card logos, a credits page's text inside no credit class
    expect(caps('<figure><img src="/visa.png"><figcaption>We take <span class="credit-card-logos">Visa and Mastercard</span></figcaption></figure>')).toEqual([["figcaption", "We take Visa and Mastercard", "https://example.org/visa.png"]]);
    // an image inside the credit (a photographer's avatar) keeps its text
    expect(caps('<div class="photo-credit"><img src="/jd.jpg"> Jane Doe</div>')).toEqual([["nearby", "Jane Doe", "https://example.org/jd.jpg"]]);
    // the paper's rule: the whole figcaption
    expect(extractCaptions(news, PAGE, { credits: false }).captions.find((c) => c.type === "figcaption")?.text).toBe("Protesters gather outside parliament on Tuesday. Photo: Jane Doe/Reuters");
    for (const html of [news, times, wp, bem]) expect(extractCaptions(html, PAGE, { skipInert: false }).captions).toEqual(extractCaptions(html, PAGE).captions);
  });

  it("a credit written into the caption's text (The Guardian's \"Photograph: …\", AP's \"(AP Photo/…)\", Unsplash's \"Photo by …\") leaves it at its end", () => {
    const fig = (t: string, opts = {}) => extractCaptions(`<figure><img src="/p.jpg"><figcaption>${t}</figcaption></figure>`, PAGE, opts).captions.map((c) => c.text);
    expect(fig('<span class="dcr-icon"><svg><path d="x"/></svg></span>A child plays in the water. Photograph: Jane Doe/AP')).toEqual(["A child plays in the water."]);
    expect(fig("Protesters gather outside parliament. (Photo: Jane Doe/Reuters)")).toEqual(["Protesters gather outside parliament."]);
    expect(fig("Residents wade through floodwater in Houston (AP Photo/David J. Phillip)")).toEqual(["Residents wade through floodwater in Houston"]);
    expect(fig("The harbour at dawn. © City Archive 1921")).toEqual(["The harbour at dawn."]);
    expect(fig("Market day in the square. Credit: John Roe for The Times")).toEqual(["Market day in the square."]);
    expect(fig("Nets drying in the sun | Photo by Jane Doe")).toEqual(["Nets drying in the sun"]);
    expect(fig("The new bridge at night. Image: Getty Images")).toEqual(["The new bridge at night."]);
    // a caption that is only a credit is no caption
    expect(fig('Photo by <a href="https://unsplash.com/@x">Someone</a> on <a href="https://unsplash.com">Unsplash</a>')).toEqual([]);
    // words that only look like one stay: a photo by the lake, a credit mid-sentence, a source of a river
    for (const t of ["A photo by the lake at dusk", "The source of the river Thames", "Photographers at work: the press pit at the final", "Her photo: a study in light and shadow, 1931", "Figure 3. Image: a cross-section of the hull", "Plate 2. Illustration: the harbour in 1850"]) expect(fig(t)).toEqual([t]);
    // nearby and table captions too; the paper's rule keeps it
    expect(caps('<div><img src="/n.jpg"><p>Boats in the harbour. Photograph: Jane Doe</p></div>')).toEqual([["nearby", "Boats in the harbour.", "https://example.org/n.jpg"]]);
    expect(fig("A child plays in the water. Photograph: Jane Doe/AP", { credits: false })).toEqual(["A child plays in the water. Photograph: Jane Doe/AP"]);
  });

  it("credits are dropped by default, kept under preset paper; extraction.dropCredits decides when set (absent unless set)", () => {
    expect(dropsCredits(resolveConfig({}))).toBe(true);
    expect(dropsCredits(resolveConfig({ preset: "paper" }))).toBe(false);
    expect(dropsCredits(resolveConfig({ preset: "paper", extraction: { dropCredits: true } }))).toBe(true);
    expect(dropsCredits(resolveConfig({ extraction: { dropCredits: false } }))).toBe(false);
    expect("dropCredits" in resolveConfig({}).extraction).toBe(false);
  });

  it("a <noscript> image right after a placeholder without an address stands in for it (Next.js next/image up to 12); elsewhere it repeats one", () => {
    const next = '<figure><span style="box-sizing:border-box;display:block"><img alt="Sea lions on the pier" src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP" decoding="async"><noscript><img alt="Sea lions on the pier" srcset="/_next/image?url=%2Fpier.jpg&amp;w=1080&amp;q=75 1x, /_next/image?url=%2Fpier.jpg&amp;w=3840&amp;q=75 2x" src="/_next/image?url=%2Fpier.jpg&amp;w=3840&amp;q=75" decoding="async"></noscript></span><figcaption>Pier 39 at noon</figcaption></figure>';
    const r = extractCaptions(next, PAGE);
    expect(r.captions.map((c) => [c.type, c.text])).toEqual([["alt", "Sea lions on the pier"], ["figcaption", "Pier 39 at noon"]]);
    expect(r.captions[0]!.url).toMatch(/^https:\/\/example\.org\/_next\/image\?url=%2Fpier\.jpg/);
    // every tag is counted once: the placeholder as replaced, no data: drop left
    expect(Object.fromEntries(r.dropped)).toEqual({ lazy_placeholder: 1 });
    expect(r.images).toBe(1);
    // a lazy loader that named the picture: its noscript copy is a repeat; so is a noscript image in another block
    expect(extractCaptions('<img src="data:image/gif;base64,AA" data-src="/a.jpg" alt="A"><noscript><img src="/a.jpg" alt="A"></noscript>', PAGE).dropped.get("noscript_image")).toBe(1);
    const apart = extractCaptions('<p><img src="data:image/gif;base64,AA" alt="gone"></p><p><noscript><img src="/b.jpg" alt="B"></noscript></p>', PAGE);
    expect(apart.images).toBe(0);
    expect(Object.fromEntries(apart.dropped)).toEqual({ data_uri: 1, noscript_image: 1 });
  });

  it("script, style and noscript content are not captions and their images are not counted", () => {
    const r = extractCaptions('<noscript><img src="n.jpg" alt="dup"></noscript><script>var s = "<img src=x>";</script><p>Text <img src="k.jpg"></p>', PAGE);
    expect(r.images).toBe(1);
    expect(r.dropped.get("noscript_image")).toBe(1);
  });
});

describe("image URLs", () => {
  it("relative URLs resolve against the page, or the first <base>", () => {
    expect(caps('<img src="../up.jpg" alt="u">')[0]![2]).toBe("https://example.org/up.jpg");
    expect(caps('<base href="https://cdn.example.net/img/"><base href="https://other/"><img src="b.jpg" alt="b">')[0]![2]).toBe("https://cdn.example.net/img/b.jpg");
  });

  it("a <base> written after the images (in the body, invalid but written) resolves them too, as a browser does: the first <base href> is the document's", () => {
    // the open defect's repro
    expect(caps('<img src="a.jpg" alt="a"><base href="https://cdn.example.net/">')).toEqual([["alt", "a", "https://cdn.example.net/a.jpg"]]);
    // every image of the page, before and after it; the first <base href> only, a relative one against the page
    const late = extractCaptions('<p><img src="one.jpg" alt="one"></p><base href="../img/"><base href="https://other/"><figure><img src="two.jpg"><figcaption>Two</figcaption></figure>', PAGE);
    expect(late.captions.map((c) => [c.type, c.text, c.image, c.url])).toEqual([
      ["alt", "one", "https://example.org/img/one.jpg", "https://example.org/img/one.jpg"],
      ["figcaption", "Two", "https://example.org/img/two.jpg", "https://example.org/img/two.jpg"],
    ]);
    expect(late.images).toBe(2);
    // a picture shown before and after the <base> is one picture (the page template's), as the browser fetches one file
    expect(caps('<img src="logo.png" alt="Logo"><base href="https://cdn.example.net/"><img src="https://cdn.example.net/logo.png" alt="Logo"><img src="b.jpg" alt="b">')).toEqual([["alt", "b", "https://cdn.example.net/b.jpg"]]);
    // an unusable <base> leaves the page in charge, wherever it is; a base without href is none
    expect(caps('<img src="c.jpg" alt="c"><base href="https://[bad/"><base href="https://other/">')[0]![2]).toBe("https://example.org/dir/c.jpg");
    expect(caps('<img src="d.jpg" alt="d"><base target="_blank"><base href="https://cdn.example.net/">')[0]![2]).toBe("https://cdn.example.net/d.jpg");
    // drops are counted once, as when the <base> comes first
    const counted = extractCaptions('<img src="data:image/gif;base64,AA"><img src="x.gif" width="1" height="1"><img src="e.jpg" alt="e"><base href="https://cdn.example.net/">', PAGE);
    expect([...counted.dropped].sort()).toEqual([...extractCaptions('<base href="https://cdn.example.net/"><img src="data:image/gif;base64,AA"><img src="x.gif" width="1" height="1"><img src="e.jpg" alt="e">', PAGE).dropped].sort());
    expect(counted.captions.map((c) => c.image)).toEqual(["https://cdn.example.net/e.jpg"]);
  });

  it("srcset (largest), picture sources and lazy-loading attributes; data: placeholders skipped", () => {
    expect(largestSrcsetCandidate("s.jpg 320w, m.jpg 640w, l.jpg 1280w")).toBe("l.jpg");
    expect(largestSrcsetCandidate("a.jpg, b.jpg 2x, c.jpg 1.5x")).toBe("b.jpg");
    // commas inside a URL are the URL's (Cloudinary transformations, data: URLs); descriptors may be spaced oddly
    expect(largestSrcsetCandidate("https://res.cloudinary.com/demo/image/upload/w_400,h_300,c_fill/dog.jpg 400w, https://res.cloudinary.com/demo/image/upload/w_800,h_600,c_fill/dog.jpg 800w")).toBe(
      "https://res.cloudinary.com/demo/image/upload/w_800,h_600,c_fill/dog.jpg",
    );
    expect(largestSrcsetCandidate("data:image/png;base64,iVBORw0KGgo= 1x,/hi.png  2x ,")).toBe("/hi.png");
    expect(largestSrcsetCandidate("  /a.jpg\t300W ,/b.jpg 600w")).toBe("/b.jpg");
    expect(caps('<img src="small.jpg" srcset="small.jpg 1x, big.jpg 2x" alt="s">')[0]![2]).toBe("https://example.org/dir/big.jpg");
    expect(caps('<img src="data:image/gif;base64,R0lGOD" data-src="/real.jpg" alt="lazy">')[0]![2]).toBe("https://example.org/real.jpg");
    expect(caps('<img src="data:image/gif;base64,R0lGOD" data-original="/orig.jpg" alt="o">')[0]![2]).toBe("https://example.org/orig.jpg");
    expect(caps('<img data-srcset="/a.jpg 100w, /b.jpg 900w" alt="ds">')[0]![2]).toBe("https://example.org/b.jpg");
    expect(caps('<picture><source srcset="/p.webp 1x, /p2.webp 2x" type="image/webp"><img alt="pic"></picture>')[0]![2]).toBe("https://example.org/p2.webp");
    const r = extractCaptions('<img src="data:image/png;base64,iVBOR" alt="inline">', PAGE);
    expect(r.captions).toEqual([]);
    expect(r.dropped.get("data_uri")).toBe(1);
  });

  it("an address a script never filled in (src=\"null\", \"undefined\", an unrendered {{template}}) is no picture: the real one is looked for elsewhere", () => {
    // homes.cs.washington.edu/~axz/ in the dolma crawl: <img … src="null" alt="img alt">, which resolved to /~axz/null
    const r = extractCaptions('<img class="img-responsive center-block" property="image" src="null" alt="img alt" / style="border: 1px #737373 solid;">', "https://homes.cs.washington.edu/~axz/");
    expect(r.captions).toEqual([]);
    expect(Object.fromEntries(r.dropped)).toEqual({ placeholder: 1 });
    for (const src of ["undefined", "NULL", " null ", "false", "[object Object]", "{{ post.image }}", "{{image}}", "${img.src}", "<%= photo_url %>", "%7B%7Bimage%7D%7D", "/img/{{id}}.jpg"]) {
      expect(extractCaptions(`<img src="${src.replace(/"/g, "&quot;")}" alt="x">`, PAGE).dropped.get("placeholder"), src).toBe(1);
    }
    // a lazy loader's real address behind it is taken; a file named so in a path is a picture
    expect(caps('<img src="null" data-src="/real.jpg" alt="r">')).toEqual([["alt", "r", "https://example.org/real.jpg"]]);
    expect(caps('<img src="/img/null.jpg" alt="n">')).toEqual([["alt", "n", "https://example.org/img/null.jpg"]]);
    expect(caps('<img src="undefined.png" alt="u">')).toEqual([["alt", "u", "https://example.org/dir/undefined.png"]]);
  });

  it("tracking pixels: 1x1 images and known beacons", () => {
    const r = extractCaptions('<img src="/t.gif" width="1" height="1" alt="x"><img src="https://www.google-analytics.com/collect?v=1" alt="y"><img src="https://pixel.wp.com/g.gif?x=1" alt="z"><img src="https://www.facebook.com/tr?id=1&ev=PageView" alt="fb"><img src="/img/spacer.gif" alt="s">', PAGE);
    expect(r.images).toBe(0);
    expect(r.dropped.get("tracking_pixel")).toBe(5);
  });

  it("normalisation: scheme and host case, default port, fragment, CDN resize parameters", () => {
    const key = (u: string) => (imageKey(u, PAGE) as { key: string }).key;
    expect(key("HTTPS://Example.ORG:443/a/../b.jpg#frag")).toBe("https://example.org/b.jpg");
    // an empty fragment goes too, and a page URL's fragment never comes along
    expect(key("b.jpg#")).toBe("https://example.org/dir/b.jpg");
    expect(imageKey("b.jpg", "https://example.org/dir/page.html#top")).toEqual({ key: "https://example.org/dir/b.jpg", url: "https://example.org/dir/b.jpg" });
    expect(key("https://cdn.example.com/p.jpg?w=300&h=200&fit=crop&id=7")).toBe("https://cdn.example.com/p.jpg?id=7");
    expect(key("https://i0.wp.com/site.com/p.jpg?resize=640%2C480&ssl=1")).toBe("https://site.com/p.jpg");
    expect(key("https://images.example.com/photo.jpg?ixlib=rb-4.0&auto=format&q=80")).toBe("https://images.example.com/photo.jpg");
    // a generic name with a value that is no size or format names the image: two queries, two images
    expect(key("https://example.com/render?q=cat")).not.toBe(key("https://example.com/render?q=dog"));
    expect(key("https://example.com/render?q=cat&w=300")).toBe("https://example.com/render?q=cat");
    expect(key("https://example.com/img?format=chart&id=3")).toBe("https://example.com/img?format=chart&id=3");
    expect(key("https://example.com/p.jpg?size=large&format=webp&width=300px")).toBe("https://example.com/p.jpg");
    expect(key("https://example.com/thumb?size=1200x630")).toBe("https://example.com/thumb");
    // Jetpack's proxy serves another host's picture: keyed as that picture (a Commons file as its File: name)
    expect(key("https://i0.wp.com/upload.wikimedia.org/wikipedia/commons/thumb/a/ab/Foo_bar.jpg/300px-Foo_bar.jpg")).toBe("File:Foo bar.jpg");
    expect(key("https://i2.wp.com/example.org/wp-content/uploads/cat.jpg?resize=640%2C480&ssl=1")).toBe("https://example.org/wp-content/uploads/cat.jpg");
    // one Gravatar at any size is one avatar
    expect(key("https://2.gravatar.com/avatar/532fa50b?s=49&d=mm&r=g")).toBe(key("https://2.gravatar.com/avatar/532fa50b?s=196"));
    // Shopify: the version stamp and the size suffixes name one picture; another host's v= is kept
    const shirt = "https://cdn.shopify.com/s/files/1/0123/4567/products/linen-shirt.jpg";
    for (const u of ["linen-shirt.jpg?v=1612345678", "linen-shirt_800x.jpg?v=1612345678", "linen-shirt_300x300_crop_center@2x.jpg?v=1", "linen-shirt_grande.jpg", "linen-shirt_{width}x.jpg?v=9"]) {
      expect(key(`https://cdn.shopify.com/s/files/1/0123/4567/products/${u}`)).toBe(shirt);
    }
    expect(key("https://shop.example.com/cdn/shop/products/linen-shirt.jpg?v=1612345678&width=800&crop=center")).toBe("https://shop.example.com/cdn/shop/products/linen-shirt.jpg");
    expect(key("https://cdn.shopify.com/s/files/1/0123/4567/products/small_batch_1.jpg?v=2")).toBe("https://cdn.shopify.com/s/files/1/0123/4567/products/small_batch_1.jpg");
    expect(key("https://example.com/img.php?v=3")).toBe("https://example.com/img.php?v=3");
  });

  it("one picture at the sizes WordPress, Blogger and Medium serve is one key (a blog's front page shows the thumbnail, the post the large one)", () => {
    const key = (u: string) => (imageKey(u, PAGE) as { key: string }).key;
    // WordPress' generated sizes (-300x200, -1024x683) and its big-image copy (-scaled) of one upload
    const boat = "https://blog.example.com/wp-content/uploads/2019/04/boat.jpg";
    for (const u of ["boat-300x200.jpg", "boat-1024x683.jpg", "boat-150x150.jpg", "boat-scaled.jpg", "boat-2048x1365.jpg"]) expect(key(`https://blog.example.com/wp-content/uploads/2019/04/${u}`)).toBe(boat);
    expect(key("https://i0.wp.com/blog.example.com/wp-content/uploads/2019/04/boat-768x512.jpg?resize=768%2C512&ssl=1")).toBe(boat);
    // a size in a name outside the uploads folder, or not at the end of the name, is the name's
    expect(key("https://example.com/banners/ad-728x90.png")).toBe("https://example.com/banners/ad-728x90.png");
    expect(key("https://blog.example.com/wp-content/uploads/2019/04/1920x1080-wallpaper.jpg")).toBe("https://blog.example.com/wp-content/uploads/2019/04/1920x1080-wallpaper.jpg");
    // Blogger: the size segment of bp.blogspot.com and blogger.googleusercontent.com, and the =s… suffix of googleusercontent
    const sunset = "https://blogger.googleusercontent.com/img/b/R29vZ2xl/AVvXsEh/photo.jpg";
    for (const size of ["s1600", "s320", "w400-h300", "w640-h480-rw", "s72-c", "d"]) expect(key(`https://blogger.googleusercontent.com/img/b/R29vZ2xl/AVvXsEh/${size}/photo.jpg`)).toBe(sunset);
    expect(key("https://1.bp.blogspot.com/-abc/XYZ/AAAAAAAAA/BBB/s1600/lake.jpg")).toBe(key("https://1.bp.blogspot.com/-abc/XYZ/AAAAAAAAA/BBB/s320/lake.jpg"));
    expect(key("https://blogger.googleusercontent.com/img/a/AVvXsEgQ=w400-h225")).toBe(key("https://blogger.googleusercontent.com/img/a/AVvXsEgQ=s1600"));
    expect(key("https://lh3.googleusercontent.com/abcDEF123=w1200-h630-p-k-no-nu")).toBe("https://lh3.googleusercontent.com/abcDEF123");
    // a folder named like a size on another host is the path's
    expect(key("https://example.com/img/s320/photo.jpg")).toBe("https://example.com/img/s320/photo.jpg");
    // Medium: the resize and format segments of miro.medium.com and the older /max/N of cdn-images
    const medium = key("https://miro.medium.com/1*abc.jpeg");
    // the URL stays the address the page gives (what `paracap extract` prints), only the key drops the size
    expect(imageKey("https://blog.example.com/wp-content/uploads/2019/04/boat-300x200.jpg?w=300", PAGE)).toEqual({ key: boat, url: "https://blog.example.com/wp-content/uploads/2019/04/boat-300x200.jpg?w=300" });
    for (const u of ["https://miro.medium.com/v2/resize:fit:1400/format:webp/1*abc.jpeg", "https://miro.medium.com/v2/resize:fill:88:88/1*abc.jpeg", "https://miro.medium.com/max/700/1*abc.jpeg", "https://cdn-images-1.medium.com/max/800/1*abc.jpeg", "https://miro.medium.com/v2/1*abc.jpeg"]) expect(key(u), u).toBe(medium);
  });

  it("Wikimedia upload URLs, thumbnails included, give exactly the File: key the Wikipedia source emits", () => {
    const [wiki] = extractImageRefs("[[File:Foo_bar.jpg|thumb|A caption]]");
    const key = (u: string) => (imageKey(u, PAGE) as { key: string }).key;
    expect(key("https://upload.wikimedia.org/wikipedia/commons/thumb/a/ab/Foo_bar.jpg/220px-Foo_bar.jpg")).toBe(wiki!.image);
    expect(key("//upload.wikimedia.org/wikipedia/commons/a/ab/Foo_bar.jpg")).toBe(wiki!.image);
    expect(key("https://upload.wikimedia.org/wikipedia/en/thumb/a/ab/Foo_bar.jpg/lossy-page1-220px-Foo_bar.jpg")).toBe("File:Foo bar.jpg");
    const [svg] = extractImageRefs("[[Image:Escudo de Escopete (Guadalajara).svg|x]]");
    expect(key("//upload.wikimedia.org/wikipedia/commons/thumb/0/0a/Escudo_de_Escopete_%28Guadalajara%29.svg/70px-Escudo_de_Escopete_%28Guadalajara%29.svg.png")).toBe(svg!.image);
  });
});

describe("hostile pages", () => {
  it("100k nested tags: read up to the depth bound, counted, with what came before", () => {
    const depth = 100_000;
    const html = `<p>Shallow <img src="s.jpg" alt="before"></p>${"<div>".repeat(depth)}deep <img src="d.jpg" alt="after">${"</div>".repeat(depth)}`;
    const r = extractCaptions(html, PAGE);
    expect(r.captions.map((c) => [c.type, c.text])).toEqual([["alt", "before"], ["nearby", "Shallow"]]);
    expect(r.dropped.get("too_deep")).toBe(1);
    const unclosed = `<figure><img src="u.jpg" alt="u">${"<span><div><table><tr><td><figure>".repeat(20_000)}<figcaption>x</figcaption>`;
    expect(extractCaptions(unclosed, PAGE).dropped.get("too_deep")).toBe(1);
    // nesting within the bound is read whole
    const ok = `${"<div>".repeat(400)}deep <img src="d.jpg">${"</div>".repeat(400)}`;
    expect(caps(ok)).toEqual([["nearby", "deep", "https://example.org/dir/d.jpg"]]);
  });

  it("a page with more images than the bound keeps the first ones and counts the rest", () => {
    const r = extractCaptions(Array.from({ length: 30 }, (_, i) => `<img src="i${i}.jpg" alt="x">`).join(""), PAGE, { maxImages: 10 });
    expect(r.images).toBe(10);
    expect(r.dropped.get("too_many_images")).toBe(20);
  });
});
