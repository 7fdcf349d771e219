#!/bin/bash
# A MindSpeed-LLM launcher with every profiling flag set as well as flags allow: Level1, CPU
# activity, shapes, Db export and a dated output directory. MindSpeed-LLM builds the profiler
# inside its package (get_profiler()); `opmfu lint` checks the launch from docs/launchers.md and
# says what no flag can fix: with_flops and MSTX are never turned on.
NPUS_PER_NODE=8
RUN_ID=$(date +%Y%m%d_%H%M%S)
GPT_ARGS=(--tensor-model-parallel-size 2 --num-layers 32 --hidden-size 4096 --seq-length 4096)
PROFILE_ARGS="--profile --profile-step-start 5 --profile-step-end 6 --profile-ranks 0 --profile-level level1"
PROFILE_ARGS+=" --profile-with-cpu --profile-record-shapes --profile-export-type db"
torchrun --nproc_per_node "$NPUS_PER_NODE" pretrain_gpt.py "${GPT_ARGS[@]}" $PROFILE_ARGS \
    --profile-save-path "./prof/$RUN_ID" --distributed-backend nccl
