"""Example training script, profiled for operator-level MFU with torch_npu.

The profiler settings below are the ones MFU collection needs: FLOPs recording (with_flops),
MSTX (which carries the FLOPs ranges), Level1, CPU and NPU activities, shapes, and the Db
export that `msprof-analyze -m operator_mfu` and `opmfu analyze` read.
"""
import argparse
import os
import time

import torch
import torch_npu
from torch_npu.profiler import ExportType, ProfilerActivity, ProfilerLevel


def parse_args():
    parser = argparse.ArgumentParser(description="toy transformer training")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--profile", action="store_true", help="collect a profile for MFU")
    parser.add_argument("--profile-level", default="level1", choices=["level0", "level1", "level2"])
    parser.add_argument("--profile-dir", default=os.environ.get("PROFILE_DIR", "./profiling"))
    return parser.parse_args()


LEVELS = {
    "level0": ProfilerLevel.Level0,
    "level1": ProfilerLevel.Level1,
    "level2": ProfilerLevel.Level2,
}


def build_profiler(args):
    experimental_config = torch_npu.profiler._ExperimentalConfig(
        profiler_level=LEVELS[args.profile_level],
        mstx=True,
        msprof_tx=True,
        export_type=[ExportType.Db],
    )
    run_dir = os.path.join(args.profile_dir, time.strftime("%Y%m%d-%H%M%S"))
    return torch_npu.profiler.profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.NPU],
        schedule=torch_npu.profiler.schedule(wait=1, warmup=1, active=2, repeat=1),
        on_trace_ready=torch_npu.profiler.tensorboard_trace_handler(run_dir),
        record_shapes=True,
        with_flops=True,
        experimental_config=experimental_config,
    )


def main():
    args = parse_args()
    model = torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 4096)).npu()
    optimizer = torch.optim.AdamW(model.parameters())
    batch = torch.randn(8, 4096).npu()
    profiler = build_profiler(args) if args.profile else None
    if profiler:
        profiler.start()
    for _ in range(args.steps):
        loss = model(batch).square().mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if profiler:
            profiler.step()
    if profiler:
        profiler.stop()


if __name__ == "__main__":
    main()
