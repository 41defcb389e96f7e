import { describe, expect, it } from "vitest";
import { ObservationEvent } from "../../verdicts/contract/schemas.js";
import { warmUpVerdictEvent } from "./verdictWarmUp.js";

describe("the warm-up verdict", () => {
  it("is a valid verdict event, so the warm-up compiles the path a real verdict takes (a rejected one would stop at the first field)", () => {
    expect(ObservationEvent.safeParse(warmUpVerdictEvent)).toMatchObject({ success: true, data: warmUpVerdictEvent });
  });
});
