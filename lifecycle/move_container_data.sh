#!/usr/bin/env bash
# Moves containerd's images and kubelet's pod data from the small root volume to the node's
# secondary EBS volume, which HyperPod mounts at /opt/sagemaker. Model-serving images are
# tens of GB. Bind mounts keep both services on their default paths and configuration.
set -euo pipefail

# The defaults are the node's; the variables exist so that tests run it in a scratch root.
readonly DATA_VOLUME=${DATA_VOLUME:-/opt/sagemaker}
readonly MOUNT_WAIT_SECONDS=${MOUNT_WAIT_SECONDS:-60}
readonly NODE_ROOT=${NODE_ROOT:-}
readonly FSTAB="$NODE_ROOT/etc/fstab"
readonly STATE_DIRS=("$NODE_ROOT/var/lib/containerd" "$NODE_ROOT/var/lib/kubelet")
readonly SERVICES=(kubelet containerd)

log() {
  echo "$(date --iso-8601=seconds) move_container_data: $*"
}

wait_for_data_volume() {
  local waited=0
  until mountpoint -q "$DATA_VOLUME"; do
    if ((waited >= MOUNT_WAIT_SECONDS)); then
      log "$DATA_VOLUME is not mounted after ${MOUNT_WAIT_SECONDS}s"
      return 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
}

bind_onto_data_volume() {
  local dir=$1 target
  target="$DATA_VOLUME/$(basename "$dir")"
  if mountpoint -q "$dir"; then
    log "$dir is already a mount point"
    return 0
  fi
  mkdir -p "$dir" "$target"
  cp -a "$dir/." "$target/"
  mount --bind "$target" "$dir"
  if ! grep -qs " $dir none bind" "$FSTAB"; then
    echo "$target $dir none bind,x-systemd.requires-mounts-for=$DATA_VOLUME 0 0" >>"$FSTAB"
  fi
  log "$dir now lives on $target"
}

wait_for_data_volume

running=()
for service in "${SERVICES[@]}"; do
  if systemctl is-active --quiet "$service"; then
    running+=("$service")
    systemctl stop "$service"
  fi
done

for dir in "${STATE_DIRS[@]}"; do
  bind_onto_data_volume "$dir"
done

# Restart what was running, containerd before kubelet.
for ((i = ${#running[@]} - 1; i >= 0; i--)); do
  systemctl start "${running[i]}"
done
