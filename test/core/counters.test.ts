import { describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";

describe("Counters", () => {
  it("merges associatively and commutatively", () => {
    const a = Counters.from({ "x.in": 3, "x.kept": 2 });
    const b = Counters.from({ "x.in": 4, "y": 1 });
    const c = Counters.from({ "y": 5 });
    const left = new Counters().merge(a).merge(b).merge(c).toJSON();
    const right = new Counters().merge(c).merge(new Counters().merge(b).merge(a)).toJSON();
    expect(left).toEqual(right);
    expect(left).toEqual({ "x.in": 7, "x.kept": 2, y: 6 });
  });

  it("serialises with sorted keys so equal counters are byte-identical", () => {
    const a = new Counters();
    a.inc("b");
    a.inc("a", 2);
    const b = new Counters();
    b.inc("a", 2);
    b.inc("b");
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(Object.keys(a.toJSON())).toEqual(["a", "b"]);
  });

  it("selects by prefix", () => {
    const c = Counters.from({ "f.dropped.too_few": 2, "f.dropped.profane": 1, "f.in": 9 });
    expect(c.withPrefix("f.dropped.")).toEqual({ too_few: 2, profane: 1 });
  });

  it("a count a later task takes back to nothing is gone, as if never counted (a revisit resolved in another phase)", () => {
    const shard = Counters.from({ "warc.image_revisits.unresolved": 2, "warc.image_revisits.resolved": 1 });
    const join = new Counters();
    join.inc("warc.image_revisits.unresolved", -2);
    join.inc("warc.image_revisits.resolved", 2);
    const all = new Counters().merge(shard).merge(join);
    expect(all.toJSON()).toEqual({ "warc.image_revisits.resolved": 3 });
  });
});
