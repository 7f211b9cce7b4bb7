/** Usage text of `paracap run`, apart from the command so that `paracap --help` loads nothing else. */
export const RUN_USAGE = `paracap run [--input <dump>…] [--history <dump>…] [--out <dir>] [options]

  --input <dump>     current-revision dump (.xml, .xml.bz2, .xml.gz, multistream with its
                     index; .7z, .xz, .zst through the 7z, xz or zstd program),
                     caption list (.tsv: caption<TAB>URL or URL<TAB>caption, or a header
                     naming the columns; .csv with a header; .jsonl; .parquet caption
                     metadata such as LAION's URL/TEXT; .tsv.gz, .csv.gz, .jsonl.gz read
                     whole; COCO captions, Karpathy split and JSON-array .json), web
                     crawl (.warc, .warc.gz; .warc.zst, .warc.bz2, .warc.xz read whole;
                     the Internet Archive's older ARC: .arc, .arc.gz; a Webrecorder or
                     Browsertrix .wacz: the WARCs in it), a crawl's paths list
                     (warc.paths.gz: each line a WARC read over HTTP(S)) or an
                     img2dataset output (webdataset .tar, a .zip of the same files
                     or of plain images, files folder: images with their captions,
                     identity from pixels);
                     a file whose name contains "history" is read as full history
  --history <dump>   full-history dump (feeds the bronze tier)
  --images <dir|tar> img2dataset output holding the images of the inputs' URLs, or a plain
                     folder of files named by URL (wget -x host/path, md5/sha1/sha256 of
                     the URL, or its basename): identity from pixels (sets pivot phash
                     unless the config names a pixel pivot)
  --out <dir>        output directory (default: out)
  --tiers <list>     comma-separated tiers (default: gold,silver,bronze)
  --config <file>    JSON config file (see config.json written next to the outputs)
  --partitions <n>   shuffle partitions (default 16)
  --workers <n>      worker threads (default: all cores)
  --model <dir>      transformer model directory (or, online, a hub id such as
                     Xenova/all-MiniLM-L6-v2): adds the embedding and bertscore metrics
  --warc-base-url <url>  server of the WARCs a paths list names
                     (default https://data.commoncrawl.org/; PARACAP_WARC_BASE_URL)
  --encoding <label> encoding of the caption lists (a WHATWG label: macintosh, iso-8859-2,
                     shift_jis, …); default: UTF-8, or windows-1252 for a legacy file
  --fresh            discard an earlier run in --out instead of resuming it
  --quiet            no progress on stderr
  --help             this text
With no --input/--history, runs on the embedded real sample (shared/sample/).`;
