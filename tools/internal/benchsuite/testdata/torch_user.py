# Reference of the benchmark suite's cuda/user-<n>-torch rows: the user
# program's math in torch eager mode, as a torch user writes it,
#
#   p = x * y * 0.5 + 1
#   r = (p + y) * p
#
# over n f32 (x = 2, y = 4, so r = 45), timed the way the suite times ours:
# one call, then wait for the device, per repetition; the median wall time
# is printed, with the median device time from CUDA events and the number
# of kernels one call launched (from the profiler; 0 where it could not
# count them).
#
#   python3 torch_user.py REPETITIONS N [N ...]
#
# Output, one line per N:
# "torch_user n=<n> wall_s=<s> dev_s=<s> kernels=<k> device=<name>".
import statistics
import sys
import time

import torch


def program(x, y):
    p = x * y * 0.5 + 1
    return (p + y) * p


def kernels(x, y):
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        program(x, y)
        torch.cuda.synchronize()
    return sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: torch_user.py REPETITIONS N [N ...]")
    reps = int(sys.argv[1])
    dev = torch.device("cuda")
    name = torch.cuda.get_device_name(dev)
    for n in map(int, sys.argv[2:]):
        x = torch.full((n,), 2.0, dtype=torch.float32, device=dev)
        y = torch.full((n,), 4.0, dtype=torch.float32, device=dev)
        r = program(x, y)
        if r[0].item() != 45 or r[-1].item() != 45:
            sys.exit("the torch program gave a wrong result")
        del r
        # Warm up for at least a second, as the suite warms up its GPU rows.
        t_end = time.perf_counter() + 1.0
        while time.perf_counter() < t_end:
            program(x, y)
            torch.cuda.synchronize()
        walls, devs = [], []
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(reps):
            t0 = time.perf_counter()
            start.record()
            out = program(x, y)
            end.record()
            torch.cuda.synchronize()
            walls.append(time.perf_counter() - t0)
            devs.append(start.elapsed_time(end) / 1000)
            del out
        try:
            k = kernels(x, y)
        except Exception:  # the profiler is optional: 0 means not counted
            k = 0
        print(f"torch_user n={n} wall_s={statistics.median(walls):.9f} dev_s={statistics.median(devs):.9f} kernels={k} device={name}")
        del x, y
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
