#!/usr/bin/env bash
# Example launcher: 8 NPUs, one profiled run for operator-level MFU.
set -euo pipefail

NPUS=${NPUS:-8}
PROFILE_DIR=${PROFILE_DIR:-./profiling/$(date +%Y%m%d-%H%M%S)}
export PROFILE_DIR

PROFILE_ARGS="--profile --profile-level level1 --profile-dir ${PROFILE_DIR}"

torchrun --nproc_per_node "${NPUS}" train.py \
    --steps 20 \
    ${PROFILE_ARGS}

# Then: opmfu analyze -d "${PROFILE_DIR}"
