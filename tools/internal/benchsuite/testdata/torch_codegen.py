"""torch references of the benchsuite's gpu-codegen rows, on the GPU ours
ran on, in the same run: each figure timed like ours (call, synchronize;
median of reps after warm-up calls), and its device time from CUDA
events. TF32 is off, so f32 matmuls stay exact as ours are.

argv: matmul_n softmax_n reps. Prints one line per figure,
"figure=<name> wall_s=<s> dev_s=<s>", then "device=<name>"."""
import statistics
import sys
import time

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False

mn, sn, reps = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
dev = torch.device("cuda")


def timed(name, fn):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    walls, devs = [], []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0 = time.perf_counter()
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        walls.append(time.perf_counter() - t0)
        devs.append(s.elapsed_time(e) / 1e3)
    print(f"figure={name} wall_s={statistics.median(walls):.9f} dev_s={statistics.median(devs):.9f}")


a = torch.ones(mn, mn, device=dev)
b = torch.ones(mn, mn, device=dev)
bias = torch.ones(mn, device=dev)
timed("matmul", lambda: torch.matmul(a, b))
timed("dense", lambda: torch.relu(torch.matmul(a, b) + bias))
a16, b16 = a.half(), b.half()
timed("matmul-f16", lambda: torch.matmul(a16, b16))
del a, b, a16, b16
x = torch.ones(sn, sn, device=dev)
timed("softmax", lambda: torch.softmax(x, dim=1))
print(f"device={torch.cuda.get_device_name()}")
