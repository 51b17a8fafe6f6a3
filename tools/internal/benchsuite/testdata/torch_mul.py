# Reference of the benchmark suite's cuda/simple_mul rows: torch.mul over
# n f32 (2 * 4) and a device-to-device copy moving the same bytes (6n bytes
# read and written), timed the way the suite times ours: one call, then
# wait for the device, per repetition; the median wall time is printed,
# with the median device time of torch.mul from CUDA events.
#
#   python3 torch_mul.py N REPETITIONS
#
# Output, one line: "torch mul_s=<s> copy_s=<s> mul_dev_s=<s> device=<name>".
import statistics
import sys
import time

import torch


def timed(fn, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    walls, devs = [], []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(reps):
        t0 = time.perf_counter()
        start.record()
        out = fn()
        end.record()
        torch.cuda.synchronize()
        walls.append(time.perf_counter() - t0)
        devs.append(start.elapsed_time(end) / 1000)
        del out
    return statistics.median(walls), statistics.median(devs)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: torch_mul.py N REPETITIONS")
    n, reps = int(sys.argv[1]), int(sys.argv[2])
    dev = torch.device("cuda")
    x = torch.full((n,), 2.0, dtype=torch.float32, device=dev)
    y = torch.full((n,), 4.0, dtype=torch.float32, device=dev)
    z = torch.mul(x, y)
    if z[0].item() != 8 or z[-1].item() != 8:
        sys.exit("torch.mul gave a wrong result")
    del z
    mul, mul_dev = timed(lambda: torch.mul(x, y), reps)
    src = torch.empty(6 * n, dtype=torch.uint8, device=dev)
    dst = torch.empty_like(src)
    copy, _ = timed(lambda: dst.copy_(src), reps)
    print(f"torch mul_s={mul:.9f} copy_s={copy:.9f} mul_dev_s={mul_dev:.9f} device={torch.cuda.get_device_name(dev)}")


if __name__ == "__main__":
    main()
