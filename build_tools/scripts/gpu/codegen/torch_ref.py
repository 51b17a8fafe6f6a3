"""torch references for codegen.sh, timed with CUDA events (median of 20
after 3 warm-up calls), on the same GPU in the same run as ours: f32 with
TF32 off, f16 matmul (cuBLAS on tensor cores; f16 result, as torch.matmul
gives, and f32 accumulation, cuBLAS's default), and, for reference, the
f32 matmul with TF32 on."""
import statistics
import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def timed(fn, reps=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


dev = torch.device("cuda")
a = torch.ones(4096, 4096, device=dev)
b = torch.ones(4096, 4096, device=dev)
bias = torch.ones(4096, device=dev)
x = torch.ones(8192, 8192, device=dev)
print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}, TF32 off")
print(f"torch matmul-f32-4096: {timed(lambda: torch.matmul(a, b)):.3f} ms")
a16, b16 = a.half(), b.half()
print(f"torch matmul-f16-4096: {timed(lambda: torch.matmul(a16, b16)):.3f} ms")
print(f"torch softmax-8192: {timed(lambda: torch.softmax(x, dim=1)):.3f} ms")
print(f"torch dense-4096: {timed(lambda: torch.relu(torch.matmul(a, b) + bias)):.3f} ms")
torch.backends.cuda.matmul.allow_tf32 = True
print(f"torch matmul-f32-tf32-4096: {timed(lambda: torch.matmul(a, b)):.3f} ms (TF32 on)")
