// The debug-hang mode, demonstrated: a kernel waits on an mbarrier phase that never completes. Built with
// GEMM_DEBUG_HANG (defined below, for this file only: no second build configuration is needed), the wait
// must trap within seconds and print the barrier's name, instead of hanging the GPU.
//
// The kernel runs in a child process, so that a real hang is caught here too: the parent reads the child's
// output with a deadline and kills it if the deadline passes. Exit codes: 0 the trap happened as designed,
// 1 it did not (a hang, no message, or a wrong message), 77 no suitable GPU (CTest: Skipped).
#define GEMM_DEBUG_HANG 1
#define GEMM_DEBUG_HANG_TIMEOUT_MS 1000

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include <cuda_runtime.h>

#include "common/ptx.cuh"

namespace {

constexpr int SKIP            = 77;
constexpr int DEADLINE_S      = 60;  // far above the 1 s timeout: only a real hang gets here
constexpr const char* BARRIER = "never_completed_bar";

// One mbarrier expecting one arrival that nobody makes: the wait for phase 0 can never succeed.
__global__ void wait_forever_kernel() {
#if __CUDA_ARCH__ >= 900
  __shared__ uint64_t never_completed_bar;
  if (threadIdx.x == 0) {
    gemm::ptx::mbarrier_init(&never_completed_bar, 1);
    gemm::ptx::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) gemm::ptx::mbarrier_wait(&never_completed_bar, 0, BARRIER);
#endif
}

int child() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no CUDA GPU here\n");
    return SKIP;
  }
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return 1;
  if (prop.major < 9 || (prop.major == 9 && prop.minor != 0) ||
      (prop.major == 10 && prop.minor != 0 && prop.minor != 3) || prop.major > 10) {
    std::printf("%s (sm_%d%d) is not a GPU this series builds for\n", prop.name, prop.major, prop.minor);
    return SKIP;
  }
  wait_forever_kernel<<<1, 32>>>();
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t sync   = cudaDeviceSynchronize();
  std::printf("launch: %s; synchronize: %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync));
  std::fflush(stdout);
  // __trap() ends the kernel with an error (cudaErrorLaunchFailure on current drivers); success means the
  // wait returned, which it never may.
  return launch == cudaSuccess && sync != cudaSuccess ? 0 : 1;
}

}  // namespace

int main() {
  int pipe_fd[2];
  if (pipe(pipe_fd) != 0) return 1;
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid  = fork();
  if (pid < 0) return 1;
  if (pid == 0) {  // the child: CUDA is first initialised here, never in the parent
    dup2(pipe_fd[1], STDOUT_FILENO);
    dup2(pipe_fd[1], STDERR_FILENO);
    close(pipe_fd[0]);
    const int code = child();
    std::fflush(stdout);
    _exit(code);
  }
  close(pipe_fd[1]);
  std::string out;
  bool timed_out = false;
  for (;;) {
    const double left =
        DEADLINE_S - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (left <= 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd p{pipe_fd[0], POLLIN, 0};
    if (poll(&p, 1, int(left * 1000) + 1) <= 0) continue;
    char buf[4096];
    const ssize_t got = read(pipe_fd[0], buf, sizeof buf);
    if (got <= 0) break;  // the child closed its end: it has exited
    out.append(buf, size_t(got));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("--- child output ---\n%s--- end (%.1f s) ---\n", out.c_str(), secs);

  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == SKIP) {
    std::printf("Skipped: no suitable GPU\n");
    return SKIP;
  }
  if (timed_out) {
    std::printf("FAIL: the kernel still had not ended after %d s: the bounded wait did not trap\n",
                DEADLINE_S);
    return 1;
  }
  const bool named = out.find(std::string("stuck on ") + BARRIER) != std::string::npos;
  if (code != 0 || !named) {
    std::printf("FAIL: expected a trap (a failed synchronize) and a message naming %s; got exit %d, %s\n",
                BARRIER, code, named ? "the message" : "no message naming it");
    return 1;
  }
  std::printf("PASS: the stuck wait trapped after %.1f s and named %s\n", secs, BARRIER);
  return 0;
}
