#!/bin/bash
source ./env.sh
NPUS=${NPUS:-8}
ARGS=(--profile --profile-level level1)
ARGS+=(--profile-with-cpu)
if [[ $MODE == fast ]]; then LEVEL=level0; else LEVEL=level1; fi
case "$1" in
  a) X="--a ${LEVEL}" ;;
  *) X= ;;
esac
f() { torchrun --nproc_per_node "$NPUS" -m pkg.train "${ARGS[@]}" $X "$@"; }
export PROF_CONFIG_PATH=./cfg
PROF_DIR=/tmp/p python3 train.py --x=${2:-y} <<EOS
not code
EOS
f --more
msprof-analyze -m operator_mfu -d "./prof/$(date +%s)"
