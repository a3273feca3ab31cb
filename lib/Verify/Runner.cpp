//===- Runner.cpp - child processes with a time limit ---------------------===//
#include "cudal1/Verify/Runner.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;

namespace cudal1 {

int runProbeInProcess(int Fd, int Device); // GpuJob.cpp

namespace {
/// In a child, before the driver is loaded: only GPU \p Device (an index
/// among those CUDA_VISIBLE_DEVICES lets the process see) stays visible.
void narrowToDevice(int Device) {
  if (Device <= 0 && !std::getenv("CUDA_VISIBLE_DEVICES"))
    return; // device 0 of all: nothing to narrow
  std::string Visible = std::to_string(Device);
  if (const char *V = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::vector<std::string> Ids;
    std::string Cur;
    for (const char *C = V;; ++C) {
      if (*C == ',' || !*C) {
        Ids.push_back(Cur);
        Cur.clear();
        if (!*C)
          break;
      } else {
        Cur += *C;
      }
    }
    if (Device >= 0 && size_t(Device) < Ids.size())
      Visible = Ids[Device];
  }
  ::setenv("CUDA_VISIBLE_DEVICES", Visible.c_str(), 1);
}

struct ChildResult {
  bool TimedOut = false;
  bool GotResult = false;
  int Status = 0; ///< waitpid status
  std::string ResultLine;
  std::string LastProgress;
};

/// Forks; the child runs \p Body(fd) and exits; the parent collects "P" and
/// "R" lines until the child ends or \p TimeoutSeconds pass (then SIGKILL).
template <typename F>
ChildResult runChild(F Body, unsigned TimeoutSeconds,
                     const std::function<void(const std::string &)> &Progress) {
  ChildResult CR;
  int Fds[2];
  if (::pipe(Fds) != 0) {
    CR.LastProgress = std::string("pipe: ") + strerror(errno);
    return CR;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t Pid = ::fork();
  if (Pid < 0) {
    CR.LastProgress = std::string("fork: ") + strerror(errno);
    ::close(Fds[0]);
    ::close(Fds[1]);
    return CR;
  }
  if (Pid == 0) {
    ::close(Fds[0]);
    // Own process group, so a kill reaches anything it started.
    ::setpgid(0, 0);
    int Code = Body(Fds[1]);
    ::close(Fds[1]);
    ::_exit(Code);
  }
  ::close(Fds[1]);
  auto Deadline = std::chrono::steady_clock::now() +
                  std::chrono::seconds(TimeoutSeconds);
  std::string Buf;
  bool Eof = false;
  while (!Eof) {
    auto Now = std::chrono::steady_clock::now();
    if (Now >= Deadline) {
      CR.TimedOut = true;
      break;
    }
    int Ms = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                     Deadline - Now)
                     .count());
    struct pollfd P = {Fds[0], POLLIN, 0};
    int N = ::poll(&P, 1, std::min(Ms, 1000));
    if (N < 0 && errno != EINTR)
      break;
    if (N <= 0)
      continue;
    char Tmp[65536];
    ssize_t R = ::read(Fds[0], Tmp, sizeof(Tmp));
    if (R <= 0) {
      Eof = true;
      break;
    }
    Buf.append(Tmp, R);
    size_t NL;
    while ((NL = Buf.find('\n')) != std::string::npos) {
      std::string Line = Buf.substr(0, NL);
      Buf.erase(0, NL + 1);
      if (Line.rfind("P ", 0) == 0) {
        CR.LastProgress = Line.substr(2);
        if (Progress)
          Progress(CR.LastProgress);
      } else if (Line.rfind("R ", 0) == 0) {
        CR.ResultLine = Line.substr(2);
        CR.GotResult = true;
      }
    }
  }
  if (CR.TimedOut) {
    ::kill(-Pid, SIGKILL);
    ::kill(Pid, SIGKILL);
  }
  ::close(Fds[0]);
  int St = 0;
  while (::waitpid(Pid, &St, 0) < 0 && errno == EINTR) {
  }
  CR.Status = St;
  return CR;
}
} // namespace

GpuInfo probeGpu(const VerifyOptions &Opts) {
  int Device = Opts.Device;
  ChildResult CR = runChild(
      [Device](int Fd) {
        // How many GPUs there are is asked of all the process sees; the
        // facts are those of the one chosen.
        return runProbeInProcess(Fd, Device);
      },
      std::min(Opts.TimeoutSeconds, 60u), nullptr);
  GpuInfo G;
  if (CR.GotResult) {
    Expected<json::Value> V = json::parse(CR.ResultLine);
    if (V)
      if (auto *O = V->getAsObject())
        if (auto *GV = O->get("gpu")) {
          fromJson(*GV, G);
          return G;
        }
    if (!V)
      consumeError(V.takeError());
  }
  G.Ok = false;
  if (CR.TimedOut)
    G.Error = "no GPU: querying the device did not finish within the time "
              "limit";
  else if (WIFSIGNALED(CR.Status))
    G.Error = formatv("no GPU: querying the device crashed (signal {0})",
                      WTERMSIG(CR.Status))
                  .str();
  else
    G.Error = "no GPU: querying the device failed" +
              (CR.LastProgress.empty() ? "" : ": " + CR.LastProgress);
  return G;
}

CandidateVerdict runVerifyJob(const VerifyJob &Job, const VerifyOptions &Opts,
                              const GpuInfo &Gpu, KernelReport *Kernel) {
  auto T0 = std::chrono::steady_clock::now();
  ChildResult CR = runChild(
      [&](int Fd) {
        narrowToDevice(Opts.Device);
        return runVerifyJobInProcess(Job, Opts, Fd);
      },
      Opts.TimeoutSeconds, Opts.Progress);
  CandidateVerdict V;
  V.Name = Job.Candidate.Label;
  V.Origin = Job.Origin;
  V.Exact = Job.Exact;
  if (CR.GotResult) {
    Expected<json::Value> J = json::parse(CR.ResultLine);
    if (J) {
      if (auto *O = J->getAsObject()) {
        if (auto *VV = O->get("verdict"))
          fromJson(*VV, V);
        if (Kernel) {
          if (auto D = O->getBoolean("original_deterministic"))
            Kernel->OriginalDeterministic = *D;
          if (auto S = O->getNumber("original_spread"))
            Kernel->OriginalSpread = *S;
        }
      }
      return V;
    }
    consumeError(J.takeError());
  }
  V.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            T0)
                  .count();
  V.Correct = false;
  V.Accepted = false;
  bool InOriginal = CR.LastProgress.find("original") != std::string::npos &&
                    CR.LastProgress.find("candidate") == std::string::npos;
  if (CR.TimedOut) {
    V.RejectKind = InOriginal ? "harness" : "timeout";
    V.Reason = formatv("no result after {0} s: killed (hang?) while \"{1}\"",
                       Opts.TimeoutSeconds, CR.LastProgress)
                   .str();
  } else if (WIFSIGNALED(CR.Status)) {
    V.RejectKind = InOriginal ? "harness" : "crash";
    V.Reason = formatv("the verification process died with signal {0} ({1}) "
                       "while \"{2}\"",
                       WTERMSIG(CR.Status), strsignal(WTERMSIG(CR.Status)),
                       CR.LastProgress)
                   .str();
  } else {
    V.RejectKind = "crash";
    V.Reason = formatv("the verification process exited ({0}) without a "
                       "result while \"{1}\"",
                       WEXITSTATUS(CR.Status), CR.LastProgress)
                   .str();
  }
  (void)Gpu;
  return V;
}

} // namespace cudal1
