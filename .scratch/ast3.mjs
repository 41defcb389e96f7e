import { parse } from "@bufbuild/cel";
const e = parse("{'a': status.x}");
console.log(JSON.stringify(e.expr, (k,v)=> typeof v === 'bigint' ? v.toString() : (k==='$typeName'? undefined : v), 0).slice(0, 3000));
