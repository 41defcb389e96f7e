// CronJob: settled once it exists. Its status stays `{}` until the first scheduled run, which may be
// hours after the apply, and it writes no conditions; the Jobs it starts are its schedule's work,
// not the apply's (kstatus treats it as always current, for the same reason). A suspended CronJob
// is settled too: suspending it is what the chart asked for. The schedule and suspension go into
// the message so a person sees what was applied.
import type { CronJob } from "../../kube/objects.js";
import { settled, type ResourceReading } from "./reading.js";
import { listParts } from "../text/text.js";
import type { RuleInput } from "./input.js";

export function settleCronJob({ object }: RuleInput): ResourceReading {
  const { spec } = object as CronJob;
  return settled(listParts("exists", spec?.schedule !== undefined && `schedule ${spec.schedule}`, spec?.suspend === true && "suspended"));
}
