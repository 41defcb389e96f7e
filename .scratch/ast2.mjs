import { parse } from "@bufbuild/cel";
const e = parse("status.conditions[0].message + status['x'] + dyn(status).y");
console.log(JSON.stringify(e.expr, (k,v)=> typeof v === 'bigint' ? v.toString() : (k==='$typeName'? undefined : v), 0).slice(0, 3000));
