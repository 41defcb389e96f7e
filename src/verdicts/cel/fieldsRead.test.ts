import { describe, expect, it } from "vitest";
import { fieldsReadAroundChecks, fieldsReadByCheck, fieldsReadByExpression, mergeFields } from "./fieldsRead.js";

describe("the fields an expression reads", () => {
  it.each([
    { source: "status.phase == 'Healthy'", fields: { status: { phase: true } } },
    { source: "has(status.phase)", fields: { status: { phase: {} } } },
    { source: "has(spec.paused) && spec.paused", fields: { spec: { paused: true } } },
    {
      source: "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')",
      fields: { status: { conditions: { type: true, status: true } } },
    },
    {
      source: "status.parents.all(p, p.conditions.exists(c, c.type == 'Accepted' && c.status == 'True'))",
      fields: { status: { parents: { conditions: { type: true, status: true } } } },
    },
    { source: "size(status.nodes) == 0", fields: { status: { nodes: true } } },
    { source: "status.conditions[0].message", fields: { status: { conditions: { message: true } } } },
    { source: "status['readyReplicas'] >= spec.replicas", fields: { status: { readyReplicas: true }, spec: { replicas: true } } },
    { source: "status.shards[spec.shard].ready", fields: { status: { shards: true }, spec: { shard: true } } },
    { source: "status.items.exists(i, i == 'a')", fields: { status: { items: true } } },
    { source: "status.replicas.exists(k, true)", fields: { status: { replicas: true } } },
    { source: "status.message.startsWith('ok')", fields: { status: { message: true } } },
    { source: "metadata.generation == status.observedGeneration", fields: { metadata: { generation: true }, status: { observedGeneration: true } } },
    {
      source: "has(metadata.annotations) && 'cnpg.io/reconciliationLoop' in metadata.annotations && metadata.annotations['cnpg.io/reconciliationLoop'] == 'disabled'",
      fields: { metadata: { annotations: { "cnpg.io/reconciliationLoop": true } } },
    },
    { source: "'ready' in status.replicas", fields: { status: { replicas: { ready: {} } } } },
    {
      source: "status.phase in ['Running', 'Paused']",
      fields: { status: { phase: true } },
    },
    { source: "{'a': status.x}.a == 1", fields: { status: { x: true } } },
  ])("$source", ({ source, fields }) => {
    expect(fieldsReadByExpression(source)).toEqual(fields);
  });
});

describe("merging", () => {
  it("a whole field absorbs the fields of it", () => {
    expect(mergeFields({ status: { conditions: { type: true } } }, { status: { conditions: true, phase: {} } })).toEqual({ status: { conditions: true, phase: {} } });
  });

  it("a check reads its expressions and what its rule reads around them", () => {
    expect(fieldsReadByCheck({ current: "status.health.status == 'Healthy'", failed: "has(spec.broken)" })).toEqual(
      mergeFields(fieldsReadAroundChecks, { status: { health: { status: true } }, spec: { broken: {} } }),
    );
  });
});
