const pk = process.argv[2];
const t = performance.now();
await import(pk);
console.log(pk, (performance.now() - t).toFixed(0));
