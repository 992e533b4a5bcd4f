#!/usr/bin/env bash
# HyperPod runs this once on every new node, as root, from the lifecycle scripts' S3 prefix
# (copied to the node next to the scripts it calls).
set -euo pipefail

readonly LOG_FILE=${PROVISION_LOG_FILE:-/var/log/provision/provisioning.log}
# HyperPod ships the log to CloudWatch a little after the node reports failure; waiting this
# long keeps the reason of a failed node readable.
readonly LOG_FLUSH_SECONDS=${PROVISION_LOG_FLUSH_SECONDS:-60}

mkdir -p "$(dirname "$LOG_FILE")"
exec >>"$LOG_FILE" 2>&1

log() {
  echo "$(date --iso-8601=seconds) on_create: $*"
}

on_failure() {
  local status=$?
  log "failed with status ${status}; waiting ${LOG_FLUSH_SECONDS}s for the log to reach CloudWatch"
  sync
  sleep "$LOG_FLUSH_SECONDS"
  exit "$status"
}
trap on_failure ERR

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

log "start"
bash "$here/move_container_data.sh"
log "done"
