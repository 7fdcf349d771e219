#!/bin/bash
# A MindSpeed-LLM launcher as such scripts are usually written: the profiler is built inside the
# mindspeed_llm package from these flags. `opmfu lint` checks them from docs/launchers.md.
export CUDA_DEVICE_MAX_CONNECTIONS=1
NPUS_PER_NODE=8
DISTRIBUTED_ARGS="--nproc_per_node $NPUS_PER_NODE --nnodes 1 --node_rank 0 --master_addr localhost --master_port 6000"
PROFILE_ARGS="--profile --profile-step-start 5 --profile-step-end 6 --profile-ranks 0 --profile-level level0 --profile-record-shapes --profile-save-path ./prof"
torchrun $DISTRIBUTED_ARGS pretrain_gpt.py \
    --tensor-model-parallel-size 2 \
    --num-layers 32 \
    $PROFILE_ARGS \
    --profile-export-type DB \
    --distributed-backend nccl
