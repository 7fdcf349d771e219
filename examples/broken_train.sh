#!/usr/bin/env bash
# A launcher in the style of MindSpeed-LLM's: profiling flags travel as one string into the
# script's argparse. `opmfu lint examples/broken_train.sh` follows them into broken_train.py.
set -euo pipefail

NPUS=${NPUS:-8}
LEVEL=${LEVEL:-level0}
SAVE_PATH=./profile_dir

PROFILE_ARGS="--profile-level ${LEVEL} --profile-save-path ${SAVE_PATH} --profile-with-cpuu"

torchrun --nproc_per_node "${NPUS}" broken_train.py ${PROFILE_ARGS}

msprof-analyze -m operator_mfu -d "${SAVE_PATH}/node0_1234_20260101000000000_ascend_pt"
