// The AsyncAPI 3 document of stagewatch's NATS interface (SPEC section 7), written from the
// service's side: it receives requests on five subjects (one queue group across replicas) and
// answers each on the requester's inbox, and it sends events into a JetStream-backed subject tree.
// Subject names, the queue group and the stream's retention come from the bus's own constants,
// and the payloads are the schemas of jsonSchemas.ts, so a change in code shows up here.
import { busNames, defaultEventStreamOptions, defaultSubjectPrefix, keysRequest, queueGroup, type AnsweredRequest } from "../../src/bus/index.ts";
import { maxBodyBytes } from "../../src/verdicts/contract/schemas.ts";
import { jsonSchemas, type ContractSchemaName, type JsonSchema } from "./jsonSchemas.ts";

const ref = (path: string) => ({ $ref: `#/${path}` });
const schemaRef = (name: ContractSchemaName) => ref(`components/schemas/${name}`);

// AsyncAPI's address parameters stand for whole tokens; the prefix may hold dots (`acme.stagewatch`).
const prefixParameter = {
  description: `The subject prefix, the same for \`stagewatch serve --subject-prefix\` and its clients (default \`${defaultSubjectPrefix}\`). One prefix per cluster lets several clusters share one NATS account; it may be dotted (\`acme.stagewatch\`).`,
  default: defaultSubjectPrefix,
};

/** A message of components.messages whose payload is one of the contract's schemas. */
function message(name: ContractSchemaName, summary: string) {
  return { name, title: name, summary, contentType: "application/json", payload: schemaRef(name) };
}

/** One request/reply subject: its channel, the reply channel (the requester's inbox) and the operation; `request` undefined: an empty body. */
function requestReply(verb: AnsweredRequest, request: ContractSchemaName | undefined, reply: ContractSchemaName, description: string) {
  const replyChannel = `${verb}Reply`;
  return {
    channels: {
      [verb]: {
        address: `{prefix}.${verb}`,
        title: `${defaultSubjectPrefix}.${verb}`,
        description: `${description} With a tenants file the service takes it on \`{prefix}.${verb}.<tenant>\` instead, from a NATS account's service import only (docs/operator/tenants-and-trust.md); a team's clients still send on \`{prefix}.${verb}\` in their own account.`,
        parameters: { prefix: ref("components/parameters/prefix") },
        messages: request === undefined ? {} : { [request]: ref(`components/messages/${request}`) },
      },
      [replyChannel]: {
        // NATS request/reply: the answer goes to the inbox the request named, not a fixed subject.
        address: null,
        description: `The requester's reply inbox (NATS request/reply). Exactly one reply per request, from one replica.`,
        messages: { [reply]: ref(`components/messages/${reply}`) },
      },
    },
    operation: {
      action: "receive",
      channel: ref(`channels/${verb}`),
      summary: description,
      messages: request === undefined ? [] : [ref(`channels/${verb}/messages/${request}`)],
      reply: { channel: ref(`channels/${replyChannel}`), messages: [ref(`channels/${replyChannel}/messages/${reply}`)] },
      bindings: { nats: { queue: queueGroup, bindingVersion: "0.1.0" } },
    },
  };
}

export function asyncApiDocument(version: string): Record<string, unknown> {
  const names = busNames(defaultSubjectPrefix);
  const maxAgeHours = defaultEventStreamOptions.maxAgeMs / 3_600_000;
  const observe = requestReply(
    "observe",
    "ObservationRequest",
    "ObserveReply",
    `Asks for an observation of the declared resources. Bodies larger than ${maxBodyBytes} bytes are refused (\`too_large\`).`,
  );
  const cancel = requestReply("cancel", "CancelRequest", "CancelReply", "Cancels an observation in progress; its verdict becomes `cancelled`.");
  const get = requestReply("get", "GetRequest", "GetReply", "The current verdict of an observation, on any replica.");
  const list = requestReply("list", "ListRequest", "ListReply", "The observations in progress the caller may see, on any replica.");
  const keys = requestReply(
    keysRequest,
    undefined,
    "KeysReply",
    "The public keys the service's verdicts verify with, for a client given none; the request's body is empty. Answered by the service alone only where nothing else may answer (see the KeysReply schema): a client given a key need not ask.",
  );
  const schemas = jsonSchemas((name) => `#/components/schemas/${name}`);
  return {
    asyncapi: "3.0.0",
    info: {
      title: "stagewatch",
      version,
      description:
        "Stage verdicts (applied, bootstrapped, healthy) for what an apply tool applied to a Kubernetes cluster. Requests name resources by identity only; bodies are JSON. Every subject starts with a configurable prefix (default `stagewatch`).",
      license: { name: "Apache-2.0" },
    },
    defaultContentType: "application/json",
    channels: {
      ...observe.channels,
      ...cancel.channels,
      ...get.channels,
      ...list.channels,
      ...keys.channels,
      events: {
        address: "{prefix}.events.{deployment}.{observationId}",
        title: `${names.prefix}.events.<deployment>.<observationId>`,
        description: [
          "The events of one observation, in order: `progress` and `stage` events, then exactly one `verdict`.",
          `They are kept by the JetStream stream \`<PREFIX>_EVENTS\` (\`${names.eventStream}\` for the default prefix: the prefix upper-cased, dots and dashes as underscores) capturing \`{prefix}.events.>\`, with limits retention, ${defaultEventStreamOptions.storage} storage and a maximum age of ${maxAgeHours} hours, so a subscriber that arrives late still reads everything, the verdict included.`,
          "Re-published events are stored once (`Nats-Msg-Id`). Follow one observation with a consumer filtered on `{prefix}.events.*.{observationId}` and `{prefix}.events.*.*.{observationId}`.",
          "With a tenants file the subject carries the tenant, `{prefix}.events.<tenant>.{deployment}.{observationId}`, and each team's account is exported its own `{prefix}.events.<tenant>.>` (no stream in its account): a team follows by subscribing there and asking `get` once subscribed.",
          "A service with a signing key signs every event and verdict (`signature`, see the Signature schema), and a signed verdict's or stage's message id ends with its signature's first 32 characters, so no one else can publish under it first. Anyone allowed to publish on `{prefix}.events.>` can still add messages to the subject: a client with the service's public key ignores every event that does not verify and keeps reading until the service's verdict.",
        ].join(" "),
        parameters: {
          prefix: ref("components/parameters/prefix"),
          deployment: ref("components/parameters/deployment"),
          observationId: ref("components/parameters/observationId"),
        },
        messages: {
          ProgressEvent: ref("components/messages/ProgressEvent"),
          StageEvent: ref("components/messages/StageEvent"),
          StalledEvent: ref("components/messages/StalledEvent"),
          VerdictEvent: ref("components/messages/VerdictEvent"),
        },
        "x-jetstream-stream": {
          name: "{PREFIX}_EVENTS",
          subjects: ["{prefix}.events.>"],
          retention: "limits",
          storage: defaultEventStreamOptions.storage,
          maxAgeSeconds: defaultEventStreamOptions.maxAgeMs / 1000,
          duplicateWindowSeconds: defaultEventStreamOptions.duplicateWindowMs / 1000,
        },
      },
      verdictNotices: {
        address: "{prefix}.verdicts.{deployment}.{observationId}",
        title: `${names.prefix}.verdicts.<deployment>.<observationId>`,
        description: [
          "The verdict event again, on a core subject the event stream does not capture, sent the moment the verdict is stored: a client already subscribed (to `{prefix}.verdicts.*.{observationId}`) has it without the stream's store and delivery, while the stream's copy stays the one kept for everyone else.",
          "Same body and signature as the stream's copy: verify it the same way. Anything but a verdict there is to be ignored; a client that was not subscribed yet misses nothing, as the stream holds the verdict.",
        ].join(" "),
        parameters: {
          prefix: ref("components/parameters/prefix"),
          deployment: ref("components/parameters/deployment"),
          observationId: ref("components/parameters/observationId"),
        },
        messages: { VerdictEvent: ref("components/messages/VerdictEvent") },
      },
    },
    operations: {
      observe: observe.operation,
      cancel: cancel.operation,
      get: get.operation,
      list: list.operation,
      keys: keys.operation,
      publishEvents: {
        action: "send",
        channel: ref("channels/events"),
        summary: "Publishes each observation's progress, stages, stall notices and verdict into the event stream.",
        messages: [
          ref("channels/events/messages/ProgressEvent"),
          ref("channels/events/messages/StageEvent"),
          ref("channels/events/messages/StalledEvent"),
          ref("channels/events/messages/VerdictEvent"),
        ],
      },
      sendVerdictNotices: {
        action: "send",
        channel: ref("channels/verdictNotices"),
        summary: "Sends each verdict to the clients already waiting for it, beside its copy in the event stream.",
        messages: [ref("channels/verdictNotices/messages/VerdictEvent")],
      },
    },
    components: {
      parameters: {
        prefix: prefixParameter,
        deployment: { description: "The request's `deployment`: 1-63 characters of a-z, 0-9 and '-'." },
        observationId: { description: "The id `observe` answered with." },
      },
      messages: {
        ObservationRequest: message("ObservationRequest", "An observation request."),
        ObserveReply: message("ObserveReply", "Accepted with its observation id, or refused."),
        CancelRequest: message("CancelRequest", "Cancel an observation."),
        CancelReply: message("CancelReply", "The verdict after the cancel, or refused."),
        GetRequest: message("GetRequest", "Ask for an observation's verdict."),
        GetReply: message("GetReply", "The current verdict, or refused."),
        ListRequest: message("ListRequest", "Ask for the observations in progress."),
        ListReply: message("ListReply", "The observations in progress the caller may see, or refused."),
        KeysReply: message("KeysReply", "The service's public keys; none when it signs nothing."),
        ProgressEvent: message("ProgressEvent", "A resource's state or reason changed."),
        StageEvent: message("StageEvent", "A stage was reached."),
        StalledEvent: message("StalledEvent", "Nothing moved for the request's stallSeconds: what the observation waits on."),
        VerdictEvent: message("VerdictEvent", "The verdict."),
      },
      // The JSON Schemas of schema/json/, without their own $schema and $id.
      schemas: Object.fromEntries(Object.entries(schemas).map(([name, { $schema: _, $id: __, ...body }]) => [name, body as JsonSchema])),
    },
  };
}
