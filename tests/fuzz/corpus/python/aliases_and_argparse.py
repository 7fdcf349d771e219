import torch_npu as tn
from torch_npu.profiler import profile as p, _ExperimentalConfig as E
import argparse
ap = argparse.ArgumentParser()
ap.add_argument("--lvl", default="Level0", choices=["Level0", "Level1"], dest="level")
a = ap.parse_args()
with p(with_flops=a.level == "Level1", experimental_config=E(profiler_level=getattr(tn.profiler.ProfilerLevel, a.level))) as prof:
    pass
