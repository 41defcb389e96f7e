import { parse } from "@bufbuild/cel";
const e = parse("has(status.parents) && status.parents.all(p, p.conditions.exists(c, c.type == 'Accepted' && c.status == 'True')) && spec.replicas == status['readyReplicas']");
console.log(JSON.stringify(e, (k,v)=> typeof v === 'bigint' ? v.toString() : v, 1).slice(0, 3000));
