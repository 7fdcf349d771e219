"""A training script as many launchers write it: it profiles, but OperatorMFU would come out empty.

`opmfu lint examples/broken_train.py` says why, line by line.
"""
import argparse

import torch_npu
from torch_npu.profiler import ExportType, ProfilerActivity, ProfilerLevel

parser = argparse.ArgumentParser()
parser.add_argument("--profile-level", default="level0", choices=["level0", "level1", "level2"])
parser.add_argument("--profile-with-cpu", action="store_true")
parser.add_argument("--profile-save-path", default="./profile_dir")
args = parser.parse_args()

LEVELS = {"level0": ProfilerLevel.Level0, "level1": ProfilerLevel.Level1, "level2": ProfilerLevel.Level2}

activities = [ProfilerActivity.NPU]
if args.profile_with_cpu:
    activities.append(ProfilerActivity.CPU)

experimental_config = torch_npu.profiler._ExperimentalConfig(
    profiler_level=LEVELS[args.profile_level],
    export_type=ExportType.Text,
    mstx_domain_include=["default", "Module"],
)
prof = torch_npu.profiler.profile(
    activities=[ProfilerActivity.NPU],
    schedule=torch_npu.profiler.schedule(wait=0, warmup=0, active=1),
    on_trace_ready=torch_npu.profiler.tensorboard_trace_handler(args.profile_save_path),
    with_modules=True,
    experimental_config=experimental_config,
)
