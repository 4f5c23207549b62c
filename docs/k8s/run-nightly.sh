#!/usr/bin/env bash
# Runs one night on Kubernetes: the Indexed Job of the shards, then (once it completed) the merge
# Job; prints the merge's output and exits with its code. Needs kubectl, envsubst (gettext-base)
# and the fencesim-results volume (kubectl apply -f docs/k8s/results-pvc.yaml, once).
#   IMAGE=registry.example/fencesim:0.1.0 SHARDS=8 BUDGET=30m bash docs/k8s/run-nightly.sh
set -euo pipefail
cd "$(dirname "$0")"
export IMAGE="${IMAGE:?set IMAGE to an image built with docs/k8s/Dockerfile}"
export SHARDS="${SHARDS:-4}"
export BUDGET="${BUDGET:-20m}"
export RUN="${RUN:-$(date -u +%Y%m%d-%H%M)}"

envsubst '${IMAGE} ${SHARDS} ${BUDGET} ${RUN}' < sweep-job.yaml | kubectl apply -f -
# Budget, plus building nothing (the image has fencesim), plus scheduling slack.
kubectl wait --for=condition=complete --timeout=3h "job/fencesim-sweep-$RUN"
envsubst '${IMAGE} ${RUN}' < merge-job.yaml | kubectl apply -f -
kubectl wait --for=condition=complete --timeout=30m "job/fencesim-merge-$RUN" || true
kubectl logs "job/fencesim-merge-$RUN"
code=$(kubectl get pods -l "job-name=fencesim-merge-$RUN" \
  -o jsonpath='{.items[0].status.containerStatuses[0].state.terminated.exitCode}')
echo "reports: /results/$RUN/merged on the fencesim-results volume (exit code $code)"
exit "$code"
