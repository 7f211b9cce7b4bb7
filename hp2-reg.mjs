import { register } from "node:module"; register("./hp2-hooks.mjs", import.meta.url);
