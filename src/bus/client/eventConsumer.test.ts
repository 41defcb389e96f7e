import { TimeoutError } from "@nats-io/transport-node";
import { expect, it } from "vitest";
import { eventConsumer } from "./client.js";
import { busNames } from "../subjects.js";

/** A JetStream client whose consumer creation fails with `failures` in turn, then succeeds. */
function jetStreamFailing(...failures: Error[]) {
  const consumer = { name: "ordered" };
  let calls = 0;
  const js = {
    consumers: {
      get: async () => {
        const failure = failures[calls++];
        if (failure) throw failure;
        return consumer;
      },
    },
  };
  return { js: js as unknown as Parameters<typeof eventConsumer>[0], consumer, calls: () => calls };
}

const names = busNames("stagewatch");

it("a consumer creation that timed out is tried again", async () => {
  const { js, consumer, calls } = jetStreamFailing(new TimeoutError(), new TimeoutError());
  await expect(eventConsumer(js, names, "obs-1", 0)).resolves.toBe(consumer);
  expect(calls()).toBe(3);
});

it("three timeouts in a row end it with the last one", async () => {
  const { js, calls } = jetStreamFailing(new TimeoutError(), new TimeoutError(), new TimeoutError());
  await expect(eventConsumer(js, names, "obs-1", 0)).rejects.toBeInstanceOf(TimeoutError);
  expect(calls()).toBe(3);
});

it("any other error is final at once", async () => {
  const { js, calls } = jetStreamFailing(new Error("stream not found"));
  await expect(eventConsumer(js, names, "obs-1", 0)).rejects.toThrow("stream not found");
  expect(calls()).toBe(1);
});
