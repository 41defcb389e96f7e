#!/usr/bin/env bash
# Applies a release's manifests, then waits for stagewatch's verdict on what that very apply
# produced, and exits with a code a CI job can act on. The one script the GitHub Actions workflow
# and the GitLab CI job next to it both run; test/e2e/ci-examples.e2e.test.ts runs it against the
# local cluster. Copy it into your repository (the examples call it as ci/observe-release.sh).
#
# Usage: observe-release.sh DEPLOYMENT MANIFESTS [TIMEOUT]
#   DEPLOYMENT   the deployment's name in stagewatch (a-z, 0-9, '-'), e.g. payments
#   MANIFESTS    what `kubectl apply -f` takes: a file or a directory
#   TIMEOUT      the whole budget, e.g. 90s, 5m (default 5m)
#
# Environment:
#   KUBECONFIG, NATS_URL (and NATS_CREDS_FILE, ...)   the cluster and the NATS its stagewatch uses
#   STAGEWATCH_SUBJECT_PREFIX   that cluster's prefix when several clusters share the NATS
#   STAGEWATCH_VERIFY_KEY       the service's public key (the chart's ConfigMap <release>-verify-keys):
#                               without it, a success counts only where the key learned from the
#                               service is its word (docs/user/verifying.md), else exit 3
#   STAGEWATCH_REQUIRE          applied, bootstrapped or healthy (default healthy)
#   STAGEWATCH_KEY              idempotency key (default: one per CI job, from GitHub's run id and
#                               attempt or GitLab's job id)
#   STAGEWATCH_VERDICT_FILE     where the verdict goes as JSON, for the job's artifacts
#                               (default stagewatch-verdict.json)
#   STAGEWATCH_ATTEMPTS         how often to ask while no stagewatch answers (default 3), and
#   STAGEWATCH_RETRY_DELAY      the seconds between (default 10)
#
# Exit codes, stagewatch observe's: 0 the required stage was reached; 1 the release failed or timed
# out (also: kubectl apply failed); 2 bad input (fix the job, do not retry); 3 no stagewatch service
# answered, after the attempts, or a success that could not be verified (not retried): the outcome
# is unknown, not a failed release.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 DEPLOYMENT MANIFESTS [TIMEOUT]" >&2
  exit 2
fi
deployment=$1
manifests=$2
timeout=${3:-5m}
require=${STAGEWATCH_REQUIRE:-healthy}
verdict_file=${STAGEWATCH_VERDICT_FILE:-stagewatch-verdict.json}
attempts=${STAGEWATCH_ATTEMPTS:-3}
retry_delay=${STAGEWATCH_RETRY_DELAY:-10}
if [ -n "${STAGEWATCH_KEY:-}" ]; then
  key=$STAGEWATCH_KEY
elif [ -n "${GITHUB_RUN_ID:-}" ]; then
  key="github-${GITHUB_RUN_ID}-${GITHUB_RUN_ATTEMPT:-1}/${deployment}"
elif [ -n "${CI_JOB_ID:-}" ]; then
  key="gitlab-${CI_JOB_ID}/${deployment}"
else
  key="local-$(date +%s)-$$/${deployment}"
fi

# Annotations where the CI shows them (GitHub), plain lines elsewhere.
say() { # LEVEL MESSAGE
  if [ "${GITHUB_ACTIONS:-}" = "true" ]; then
    local text=${2//%/%25}
    echo "::$1 title=stagewatch ${deployment}::${text//$'\n'/%0A}"
  else
    echo "stagewatch ${deployment}: $1: $2"
  fi
}

# The server's output, not the files: it carries each object's namespace and the generation this
# apply produced, so a status written for the previous generation can never count.
applied=$(mktemp)
trap 'rm -f "$applied"' EXIT
if ! kubectl apply -f "$manifests" -o json >"$applied"; then
  say error "kubectl apply -f ${manifests} failed"
  exit 1
fi

# Exit 3 with a verdict printed: a success stagewatch could not verify, which asking again does not change.
unverified() {
  [ -s "$verdict_file" ] && node -e 'process.exit(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).verified === false ? 0 : 1)' "$verdict_file" 2>/dev/null
}

# The same key on every attempt: a retry follows the observation the first one started (the
# service answers it as a replay), it never starts a second one.
attempt=1
while :; do
  status=0
  stagewatch observe -f "$applied" --deployment "$deployment" --require "$require" --timeout "$timeout" \
    --key "$key" --json >"$verdict_file" || status=$?
  [ "$status" -eq 3 ] && [ "$attempt" -lt "$attempts" ] && ! unverified || break
  echo "stagewatch ${deployment}: no stagewatch answered (attempt ${attempt} of ${attempts}); asking again in ${retry_delay}s" >&2
  attempt=$((attempt + 1))
  sleep "$retry_delay"
done

# The verdict's message, read with the node stagewatch runs on; an exit 1 without a verdict (an
# unexpected error, printed above) falls back to pointing there.
message() {
  node -e 'try { process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).message) }
    catch { process.stdout.write("no verdict: see stagewatch'"'"'s output above") }' "$verdict_file"
}
case $status in
  0) echo "stagewatch ${deployment}: $(message)" ;;
  1) say error "$(message)" ;;
  2) rm -f "$verdict_file"; say error "bad input: see stagewatch's message above; retrying will not help" ;;
  3)
    if unverified; then
      say error "the verdict says succeeded, but it could not be verified as the service's: set STAGEWATCH_VERIFY_KEY (see stagewatch's message above)"
    else
      say warning "no stagewatch service answered after ${attempts} attempts: the release's outcome is unknown"
    fi
    rm -f "$verdict_file"
    ;;
esac
exit "$status"
