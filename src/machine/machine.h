/* machine/: the interface every probe measures through and every backend
 * implements, and the chase layouts probes ask for. */
#ifndef XRAY__MACHINE_H
#define XRAY__MACHINE_H

#include "xray.h"
#include "measure/measure.h"
#include "kernels/kernels.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* machine/chase.c: pointer chasing over an arena of memory.  A chase visits the
 * arena offsets off[0], off[1], ..., off[n-1], off[0], ... and each load's
 * address is the value the previous load read (X-Ray's p = *(void **)p). */
enum xray__arena_kind {
  XRAY__ARENA_HUGE, /* large pages where the OS gives them */
  XRAY__ARENA_SMALL /* base pages only (TLB probes) */
};

struct xray__chase {
  const uint64_t *off; /* byte offsets, multiples of 8 */
  size_t n;
  enum xray__arena_kind arena;
  /* One of many draws that will be averaged: one warm traversal and the
   * fastest of three short timings, not the full sampler. */
  int quick;
};

struct xray__arena {
  char *base;
  size_t len, maplen;
  void *map;
  int full; /* the last reserve failed for want of memory (ENOMEM) */
  int ahead; /* the last chain placed carries look-ahead pointers */
  size_t filled; /* bytes from base a stream has written (faulted in) */
  /* A sparse arena (map NULL): only the pages its chains touch are
   * mapped, each run of them on its own; their numbers from base, in
   * order (real/arena.c). */
  uint64_t *pages;
  size_t npages, cappages;
};

/* Loads per call of xray__chase_run per iteration. */
#define XRAY__CHASE_UNROLL 16

/* machine/chase.c: shuffle off[0..n-1] into a random order and time the chase through it
 * (cycles per load); the point is (n, cycles) of kernel "chase/LAYOUT"
 * ("chase-4k/" on base pages), LAYOUT naming what besides n made off. */
double xray__chase_time(xray_machine *m, uint64_t *off, size_t n, enum xray__arena_kind arena,
                        uint64_t *rng, const char *probe, const char *layout);

/* machine/chase.c: the same, in the order off gives (each offset once). */
double xray__chase_ordered(xray_machine *m, const uint64_t *off, size_t n,
                           enum xray__arena_kind arena, const char *probe, const char *layout);

/* The least time of the packed chains of each line count so far, kept by
 * a probe that asks for the same counts again and again (zeroed to start;
 * xray__packed_free ends it). */
struct xray__packed {
  struct xray__packed_count {
    size_t lines;
    enum xray__arena_kind arena;
    unsigned draws;
    double best;
  } * c;
  size_t n, cap;
};
void xray__packed_free(struct xray__packed *memo);

/* The cost per load of translation: n lines, one in each of pages shift,
 * shift + stride, shift + 2 stride, ... and in fill more pages past them,
 * none a multiple of 16 pages from the first (so in other sets of any
 * level of 16 sets or more than the strided ones), at offsets that spread
 * them over every L1 set, less the same lines packed into the fewest
 * pages.  The packed chain's time goes to *base if not NULL.  off has room
 * for n + fill.  Unless memo is NULL, the packed chain of n + fill lines
 * is chased only until it has XRAY__PACKED_DRAWS times there, and their
 * least stands for it from then on. */
#define XRAY__PACKED_DRAWS 3
double xray__tlb_cost(xray_machine *m, uint64_t *off, size_t n, size_t fill, size_t stride,
                      size_t shift, enum xray__arena_kind arena, uint64_t *rng, const char *probe,
                      struct xray__packed *memo, double *base);

/* Two CPUs at once (the sharing and interference probes): what CPU a
 * does, timed, while CPU b (-1: no one) does its part.
 *   CHASE     a chases c; b chases a copy of c of its own, in memory of
 *             its own: cycles per load of a's chase.
 *   PINGPONG  a and b hand a token back and forth through one word, each
 *             writing it when it sees the other's last write: cycles per
 *             round trip (a to b and back).
 *   WRITES    a and b each increment a word of their own, dist bytes
 *             apart, with a locked add (atomic): cycles per increment of
 *             a's.  Locked, so that each must own the line: a plain one
 *             reads its own store back from the store buffer, and a core
 *             that drains many stores a turn (Intel's) hides the line's
 *             trips.
 *   HANDOFF   b writes every line of the chain c (one copy, shared; the
 *             word after each link, so links at least 16 bytes apart),
 *             then a walks it once, reading each line (from b's cache) and
 *             taking it with a locked add: cycles per line of a's; again
 *             for each sample.
 * A measurement counts only while b verifiably runs at the same time. */
enum xray__duo_kind { XRAY__DUO_CHASE, XRAY__DUO_PINGPONG, XRAY__DUO_WRITES, XRAY__DUO_HANDOFF };
struct xray__duo {
  enum xray__duo_kind kind;
  int a, b;
  const struct xray__chase *c; /* CHASE, HANDOFF */
  size_t dist; /* WRITES */
};

/* A chain of code pieces run as a loop (kernels.h: struct xray__piece),
 * each of statements s: where they lie decides which cache sets and lines
 * the loop's code takes; link (enum xray__link) how each leaves for the
 * next. */
struct xray__jchain {
  const struct xray_stmt *s;
  const struct xray__piece *p;
  size_t n;
  int link;
};

/* The table of slots a backend fills (real/, sim/, replay/): private to
 * machine/ and the backends (machine/ops.h).  A probe measures through
 * xray__machine_measure and asks the rest through the calls below. */
struct xray__machine_ops;

/* What kind of failure a slot that gave no value met, beside the text in
 * m->error: xray__machine_measure's status says it to probes, which
 * never read the text.  A backend sets both with xray__machine_fail(). */
enum xray__failure {
  XRAY__FAIL_ERROR, /* the measurement failed; the text says why */
  XRAY__FAIL_ABSENT, /* the machine lacks what was asked (an instruction) */
  XRAY__FAIL_UNRECORDED, /* a replay holds no such point */
  XRAY__FAIL_ROOM /* no memory for it (a limit such as ulimit -v) */
};

#define XRAY__GIVEN_MAX 256 /* values a machine takes as given */

struct xray_machine {
  const struct xray__machine_ops *ops;
  int modelled; /* kernels are modelled, not run: machine code of any ISA will do */
  /* What a probe may ask of a machine (it never asks which backend it
   * is).  timed: its measurements take real time on this host, so
   * deadlines, pauses and this host's limits (CFS quota) apply.
   * hardware: it is real hardware or a recording of it: other tenants may
   * share its last level, memory answers in no less than 50 ns, and its
   * OS view is a second view rather than the truth.  tenants: other
   * programs may take a share of its shared levels (real hardware, a
   * recording, a simulation with a tenant). */
  int timed, hardware, tenants;
  /* How its backend runs what probes ask, in the words of their method
   * texts: the code it times ("x86-64 machine code"), the compiler that
   * builds its C kernels ("the compiler") and how it rates its counter.
   * Never NULL; probes print them and never test them. */
  const char *code_words, *compiler_words, *counter_words;
  /* Runs so far of each probe on this machine (a recording holds several),
   * and run, the current probe's: 1 for its first. */
  const void *probe_seen[16];
  unsigned probe_runs[16];
  unsigned run;
  char desc[200];
  double budget; /* seconds one probe may spend */
  FILE *trace; /* CSV of every measured point, or NULL */
  double tick_hz, core_hz; /* real machine only */
  /* The CPU its single-threaded kernels run on (a simulation's and a
   * replay's: 0); -1 where the thread is not bound to one. */
  int home;
  struct xray__rand_jumps *jumps; /* xray__machine_jumps's */
  size_t page; /* base page size: the unit of physical placement */
  xray_kernel kernel; /* which kernels time code */
  char *cc, *cflags; /* for C kernels: never NULL once the machine exists */
  char oplist[512]; /* TYPE:OP,... for the latency and throughput probes */
  char types[256]; /* TYPE,... for the registers probe */
  char error[200]; /* why a measurement was impossible, for people */
  enum xray__failure failure; /* and what kind of why, for probes */
  unsigned short_of_room; /* this probe's measurements that had no memory (XRAY__FAIL_ROOM) */
  /* Values taken as given (xray_machine_give): a probe that rests on one
   * of them uses it where no earlier probe of its run set it, instead of
   * measuring it again (xray__resting_on). */
  struct xray__given {
    char name[48];
    double value;
    int confirmed;
  } given[XRAY__GIVEN_MAX];
  size_t ngiven;
};

/* machine/machine.c: m's words (above) as the real backend's, which a
 * recording of it shares: its machine code, the user's compiler, its
 * counter rated against CLOCK_MONOTONIC. */
void xray__machine_hardware_words(xray_machine *m);

/* The machine's OS view of a value (its backend's os_view). */
int xray__os_view(const xray_machine *m, const char *name, double *v, char *src, size_t srclen);

/* What a probe asks a machine to time: one of the ops table's timing
 * slots (machine/ops.h) and its arguments.  Probes never see those
 * slots; they ask xray__machine_measure (below). */
enum xray__ask_kind {
  XRAY__ASK_CODE, /* code: n statements stmt */
  XRAY__ASK_CCODE, /* ccode: C kernel cspec unrolled to n; its code bytes in *bytes */
  XRAY__ASK_JCHAIN, /* jchain: the chain of pieces jchain */
  XRAY__ASK_CHASE, /* chase: the pointer chase chase */
  XRAY__ASK_KTIME, /* ktime: kernel n of the last kbuild; *avail, *stack */
  XRAY__ASK_BTIME, /* btime: branch kernel n, random bits in the first arg of its iterations */
  XRAY__ASK_STREAM, /* stream: stream kernel n over arg bytes on `a` threads */
  XRAY__ASK_CLOCK, /* clock, in MHz; the counter's rate in Hz in *tsc_hz */
  XRAY__ASK_FMA, /* fma: with `a` chains */
  XRAY__ASK_PAIR, /* pair: CPUs a and b, the median of n runs */
  XRAY__ASK_DUO /* duo: the two CPUs' parts duo */
};
struct xray__ask {
  enum xray__ask_kind kind;
  const struct xray_stmt *stmt;
  const struct xray_cspec *cspec;
  const struct xray__jchain *jchain;
  const struct xray__chase *chase;
  const struct xray__duo *duo;
  size_t n;
  double arg;
  int a, b;
  /* btime: 1 + the CPU to time the kernel on; 0: the machine's home CPU
   * (xray_machine's home).  The kernel label must name the CPU. */
  int away;
  int *avail; /* outputs, where the kind has them */
  double *stack, *bytes, *tsc_hz;
  double *cycle_hz; /* a stream's: the clock its cycles are of (ops.h) */
};

/* What a measurement gave: its value (NAN unless measured) and status;
 * the reason, for people, in m->error. */
enum xray__status {
  XRAY__MEASURED,
  XRAY__ABSENT, /* the machine lacks what was asked (an instruction) */
  XRAY__FAILED, /* the measurement failed */
  XRAY__UNRECORDED, /* a replay holds no such point */
  XRAY__NO_ROOM /* no memory for it (a limit such as ulimit -v) */
};
struct xray__got {
  double y;
  enum xray__status status;
};

/* The one measurement call: time what `ask` says, as the point at x of
 * a probe's kernel (x: code bytes, pages, loads, ...; for a C kernel's
 * code, XRAY__X_BYTES: the bytes the compiler gave).  It alone writes the
 * trace and lets a recording answer: on a replaying machine the
 * recording's answer for the key (probe, kernel, x) replaces the slot's.
 * The kernel label names everything besides x that decides the time, so
 * that a recording answers only like with like. */
#define XRAY__X_BYTES (-1.0)
struct xray__got xray__machine_measure(xray_machine *m, const char *probe, const char *kernel,
                                       double x, const struct xray__ask *ask);
/* Whether m answers every measurement from a recording, by its key alone:
 * a probe need not lay out the data a measurement would run over (a
 * chase's chain), only draw what the key and later draws depend on. */
int xray__machine_answers_by_key(const xray_machine *m);
/* Where m answers by key: the table that skips a shuffle's draws
 * (measure/random.c), built on first use and freed with m; else NULL. */
const struct xray__rand_jumps *xray__machine_jumps(xray_machine *m);
/* A slot's failure: the text (printf-style) in m->error and its kind in
 * m->failure; returns NAN, the slot's answer. */
double xray__machine_fail(xray_machine *m, enum xray__failure kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The ops table's slots that time nothing, for probes and run/ (see
 * machine/ops.h for what each does). */
int xray__machine_cpus(xray_machine *m, int *cpu, int max);
int xray__machine_kbuild(xray_machine *m, const struct xray_cspec *c, size_t n);
int xray__machine_kinfo(xray_machine *m, size_t i, double *stack);
int xray__machine_bbuild(xray_machine *m);
const struct xray__bcount *xray__machine_bcount(xray_machine *m, size_t k);
int xray__machine_sbuild(xray_machine *m, int *nt);
double xray__machine_bevent(xray_machine *m, const char *name, size_t k, long size);
int xray__machine_cevents(xray_machine *m, const char *const *names, size_t n,
                          const struct xray__chase *c, long loads, double *out);
void xray__machine_reset(xray_machine *m);
/* A probe starts: the backend's begin. */
void xray__machine_begin(xray_machine *m);
/* Whether probes must use the C path (xray_kernel, and the ISA). */
int xray__machine_uses_c(const xray_machine *m);
/* Points so far measured without two samples at full speed; and in
 * *measured, all points measured so far. */
int xray__machine_unsure(const xray_machine *m, int *measured);
/* Whether a probe that repeats until its values agree may start run n+1
 * (n done): before deadline (xray__now()'s) on a timed machine; on one
 * whose measurements take no real time (a model, a recording), while n is
 * under runs, so that its answer never depends on how fast or how busy
 * the host that computes it is. */
int xray__machine_more_runs(const xray_machine *m, double deadline, int n, int runs);
/* A probe's deadline, its budget from now, on a machine that takes real
 * time; 0 (none) on one that does not: a simulation or a replay gives the
 * same answers on any host. */
static inline double
xray__budget_deadline(const xray_machine *m)
{
  return m->timed ? xray__now() + m->budget : 0;
}
/* Whether deadline (0: none) has passed. */
static inline int
xray__past(double deadline)
{
  return deadline > 0 && xray__now() > deadline;
}

/* machine/os.c: this operating system's view of a value (sysfs, hwloc, sysconf,
 * CPUID), by name; -1 if it gives none. */
int xray__os_read(const char *name, double *v, char *src, size_t srclen);
/* Whether this OS runs under a hypervisor that says so (x86's CPUID flag,
 * "hypervisor" in /proc/cpuinfo): 1, else 0 (also where none says). */
int xray__os_guest(void);
/* machine/os.c: the CPUs this thread may use (its affinity mask, or the
 * mask it had before a pin below), at most max of them in cpu[]; how many
 * there are. */
int xray__affinity(int *cpu, int max);
/* The same of the thread's own mask, pins aside. */
int xray__thread_cpus(int *cpu, int max);
/* machine/os.c: the least memory limit set on this process, in bytes (its
 * address space, ulimit -v; its cgroup's memory.max or, under cgroup v1,
 * memory.limit_in_bytes), with where it comes from in src; 0 if none. */
double xray__os_memory_limit(char *src, size_t srclen);
/* machine/os-kinds.c: a real machine measures on one CPU, its home.  The
 * CPUs of one machine can run at clocks some per cent apart, so a clock
 * taken on one CPU converts only the times of kernels run on that CPU, and
 * a thread the scheduler moves takes its caches with it.  xray__pin binds
 * this thread to the CPU it is on (within its mask) and keeps the mask it
 * had, which xray__affinity reports while the pin holds and xray__unpin
 * gives back: 0, or -1 where the thread cannot be bound (and is not). */
struct xray__pin {
  int *cpu, n; /* the mask before the pin */
  int home;
  struct xray__pin *outer;
};
int xray__pin(struct xray__pin *p);
void xray__unpin(struct xray__pin *p);
/* The innermost pin this thread holds, or NULL. */
const struct xray__pin *xray__pinned(void);
/* machine/os-kinds.c: this thread (and the threads it starts) may run on
 * the n CPUs of cpu[] only; 0, or -1. */
int xray__bind(const int *cpu, int n);
/* machine/os.c, for the OS readers: the recorded tree's root
 * (XRAY_FSROOT), or NULL for the live system; the first line of a /sys or
 * /proc file under it, without its newline and trailing blanks (0, or
 * -1); the CPUs of a sysfs CPU list file ("0-3,8,10-11"), at most max of
 * them in cpu[], how many it names (or -1). */
const char *xray__os_root(void);
int xray__os_line(const char *path, char *buf, size_t len);
int xray__os_cpu_list(const char *path, int *cpu, int max);

/* The most CPUs xray lists, pins or pairs: a kind's CPUs, a probe's
 * placements, the OS view's CPU lists.  Past it a list is cut, never
 * overrun. */
#define XRAY__MAX_CPUS 1024

/* A kind of core (performance, efficiency) and its CPUs. */
#define XRAY__KINDS_MAX 8
struct xray__kind {
  char name[32];
  int cpu[XRAY__MAX_CPUS], ncpu;
};
/* machine/os-kinds.c: the kinds of core the OS tells apart, the fastest first
 * (hwloc's cpukinds, Intel's cpu_core and cpu_atom PMUs, Arm's
 * cpu_capacity), each with the CPUs of it this process may use; how many,
 * at most max, with where they came from in src.  1 (and nothing in k)
 * where the OS tells no kinds apart. */
int xray__os_kinds(struct xray__kind *k, int max, char *src, size_t srclen);

/* What a value is: the OS view and the simulator's truth answer from
 * this, with the row's level and arg, never from the value's name.  The
 * cache size, ways and line come first, in this order (os.c indexes its
 * sysfs fields by them). */
enum xray__what {
  XRAY__W_CACHE_SIZE = 1,
  XRAY__W_CACHE_ASSOC,
  XRAY__W_CACHE_LINE,
  XRAY__W_CACHE_LATENCY,
  XRAY__W_UOP_OPS,
  XRAY__W_CACHE_LEVELS,
  XRAY__W_MEM_LATENCY,
  XRAY__W_LRU,
  XRAY__W_PAGE_SIZE,
  XRAY__W_TLB_ENTRIES,
  XRAY__W_TLB_ASSOC,
  XRAY__W_TLB_HIT2, /* a first-level miss that hits the second level */
  XRAY__W_TLB_WALK, /* a miss in every level */
  XRAY__W_CPU_MHZ,
  XRAY__W_TSC_MHZ,
  XRAY__W_OP, /* an operation's latency or interval (--ops) */
  XRAY__W_FMA_FUSES,
  XRAY__W_FMA_ISA,
  XRAY__W_FMA_LATENCY,
  XRAY__W_FMA_RATE,
  XRAY__W_BRANCH_PENALTY,
  XRAY__W_BW_WIDTH,
  XRAY__W_BW, /* arg: the stream kernel (XRAY__SK_...), | XRAY__ALL_CORES */
  XRAY__W_SHARED_BY,
  XRAY__W_C2C,
  XRAY__W_DESTRUCTIVE,
  XRAY__W_CONSTRUCTIVE,
  XRAY__W_REGS, /* arg: 0 integer, 1 floating point, 2 vector */
  XRAY__W_NUM_CPUS,
  XRAY__W_NUM_CORES,
  XRAY__W_SMT_WAYS
};
#define XRAY__LEVEL_INSN (-1) /* the L1I */
#define XRAY__LEVEL_MEM 64 /* memory, as a level of the bandwidth rows */
#define XRAY__ALL_CORES 0x100 /* a bandwidth row's every-core figure */

/* machine/params.c: the table of every value xray reports.  A family's name
 * holds <n> (a level) or <TYPE>_<OP>; its desc a %s for each.  level: the
 * cache or TLB level of a row (1 for the L1D and the first TLB, 0 where
 * none), or, in a family of <n>, the least level its names take. */
struct xray__param {
  const char *name, *unit, *desc, *probe;
  int kind; /* XRAY__IN_CYCLES, XRAY__LATENCY: what the rules of run/probe.c know of it */
  enum xray__what what;
  int level, arg;
};
#define XRAY__IN_CYCLES 1 /* counted in core cycles: a figure needs the core clock */
#define XRAY__LATENCY 2 /* a latency: less than one cycle is no machine's */
/* The OS reads it from the topology the processor reports (up to the L2,
 * in a family of <n>) and gets it right where it gives it at all. */
#define XRAY__OS_SETTLES 4
const struct xray__param *xray__param_at(size_t i); /* NULL past the last */
const struct xray__param *xray__param_find(const char *name);
/* The row of name, and in *level the name's level (the row's, or the
 * family's <n>); NULL where none, or where <n> is below the family's. */
const struct xray__param *xray__param_match(const char *name, int *level);

#endif
