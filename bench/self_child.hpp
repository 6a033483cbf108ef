// bench/self_child.hpp -- run this benchmark program again as a child
// process with other arguments and collect what it prints on stdout: the
// benchmarks measure a mapping's time and memory apart from their own.
#pragma once
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace rankmap_bench {

// Peak resident set of this process since its exec (KiB), from VmHWM; -1
// if unknown.  A child reports this, not its getrusage ru_maxrss: that
// one counts the parent's pages the fork shared before the exec.
inline double peak_rss_kib() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6);
    return -1;
}

struct ChildRun {
    std::string out;  // stdout, trailing blanks and newlines removed ("" if it could not start)
    int status = -1;  // waitpid status
    struct rusage usage;  // the child's getrusage (its ru_maxrss counts pages shared before the exec)
};

// /proc/self/exe with argv0 and args; stdout piped back.
inline ChildRun run_self(const char *argv0, const std::vector<std::string> &args) {
    ChildRun r;
    std::memset(&r.usage, 0, sizeof r.usage);
    int fd[2];
    if (pipe(fd) != 0) return r;
    std::vector<char *> av;
    av.push_back(const_cast<char *>(argv0));
    for (const auto &a : args) av.push_back(const_cast<char *>(a.c_str()));
    av.push_back(nullptr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return r;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        execv("/proc/self/exe", av.data());
        _exit(127);
    }
    close(fd[1]);
    char buf[512];
    ssize_t k;
    while ((k = read(fd[0], buf, sizeof buf)) > 0) r.out.append(buf, static_cast<size_t>(k));
    close(fd[0]);
    wait4(pid, &r.status, 0, &r.usage);
    while (!r.out.empty() && (r.out.back() == '\n' || r.out.back() == ' ')) r.out.pop_back();
    return r;
}

} // namespace rankmap_bench
