/* libxray: hardware parameters measured by timing generated
 * micro-benchmarks (the X-Ray method of Yotov, Pingali and Stodghill).
 *
 *   char err[256];
 *   xray_machine *m = xray_machine_real(err, sizeof err);
 *   xray_report *r = xray_report_new();
 *   xray_probe_run(xray_probe_find("icache"), m, r);
 *   xray_report_write(r, stdout, XRAY_FORMAT_JSON);
 *   xray_report_free(r);
 *   xray_machine_free(m);
 */
#ifndef XRAY_H
#define XRAY_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XRAY_VERSION "0.1.0"
#define XRAY_API_VERSION 8

const char *xray_version(void);

/* --- machines: where measurements are taken ------------------------------ */

typedef struct xray_machine xray_machine;

/* This machine.  Calibrates the tick source and the core clock (~50 ms).
 * The calling thread is bound to the CPU it runs on, within its affinity
 * mask, until xray_machine_free gives the mask back: the clock and every
 * single-threaded kernel are then timed on one CPU (the CPUs of one
 * machine can run at clocks some per cent apart).  Threads of probes of
 * several cores still use every CPU of the mask.  Measure with it, and
 * free it, on the thread that made it. */
xray_machine *xray_machine_real(char *err, size_t errlen);

/* A simulated machine, e.g. "l1i=48K:12:64,uop=4096" (see xray(1)).
 * Returns NULL and a message naming what to fix on a malformed spec. */
xray_machine *xray_machine_simulated(const char *spec, char *err, size_t errlen);

void xray_machine_free(xray_machine *m);

/* Which kernels time code: machine code where the ISA has a backend
 * (x86-64), else the portable C path (generated C compiled with the
 * compiler set below and run as a program; slow, labelled in results). */
typedef enum xray_kernel {
  XRAY_KERNEL_AUTO,
  XRAY_KERNEL_MACHINE_CODE,
  XRAY_KERNEL_C
} xray_kernel;

/* -1 if the kernel kind cannot run on this machine. */
int xray_machine_set_kernel(xray_machine *m, xray_kernel k);
/* Compiler and flags for C kernels (default: $CC or cc, $CFLAGS or -O2),
 * of any length; -1 without memory (the previous ones stay). */
int xray_machine_set_compiler(xray_machine *m, const char *cc, const char *cflags);
/* Remove temporary files of a C kernel in flight; async-signal-safe. */
void xray_remove_temporaries(void);
/* Probe options: "ops" (TYPE:OP,... for latency and throughput, e.g.
 * "double:*,long:+"; OP is + - * / or fma) and "types" (TYPE,... for
 * registers).  -1 with a message on an unknown name, type or operator. */
int xray_machine_set_option(xray_machine *m, const char *name, const char *value, char *err,
                            size_t errlen);
void xray_machine_set_budget(xray_machine *m, double seconds_per_probe);
/* A value taken as given, e.g. ("XRAY_L2_SIZE", 1048576, 1) from an
 * earlier run: a probe that rests on it (bandwidth, sharing and
 * interference on the cache levels, caches and lru on the L1D) uses it
 * where no earlier probe of the same run set it, instead of measuring it
 * again; confirmed 0 makes what rests on it unconfirmed.  A given value is
 * not itself reported.  -1 for a name xray does not report, a value that
 * is not finite, or too many values (256); a name given again replaces
 * its value. */
int xray_machine_give(xray_machine *m, const char *name, double value, int confirmed);
void xray_machine_set_trace(xray_machine *m, FILE *csv);
const char *xray_machine_describe(const xray_machine *m);
/* What a machine is, never which kind of machine made it.  timed: its
 * measurements take real time on this host (this machine).  hardware:
 * it is real hardware or a recording of it, not a simulation. */
int xray_machine_is_timed(const xray_machine *m);
int xray_machine_is_hardware(const xray_machine *m);
double xray_machine_core_mhz(const xray_machine *m);   /* 0 if unknown */

/* --- results ------------------------------------------------------------- */

typedef enum xray_source {
  XRAY_SOURCE_MEASURED,         /* timed on this machine */
  XRAY_SOURCE_OVERRIDE,         /* given by the user */
  XRAY_SOURCE_OS,               /* read from the operating system */
  XRAY_SOURCE_DEFAULT,          /* a built-in default */
  XRAY_SOURCE_UNKNOWN           /* could not be established; see reason */
} xray_source;

/* Results are opaque (libxray 1:0:0, API version 2): a report holds the
 * values of the probes run into it, in order, and each value is read
 * through the functions below, so that fields can be added without
 * breaking programs linked to an older libxray.  Strings stay valid until
 * the report is freed. */
typedef struct xray_value xray_value;
typedef struct xray_report xray_report;

/* An empty report, or NULL if memory is short; and its end. */
xray_report *xray_report_new(void);
void xray_report_free(xray_report *r);

size_t xray_report_count(const xray_report *r);
/* The i-th value, NULL past the last; the value named name (a define
 * such as "XRAY_L1I_SIZE"), or NULL. */
const xray_value *xray_report_at(const xray_report *r, size_t i);
const xray_value *xray_report_get(const xray_report *r, const char *name);
const char *xray_report_machine(const xray_report *r); /* "" before a probe ran */
const char *xray_report_compiler(const xray_report *r); /* CC and CFLAGS of C kernels */
double xray_report_core_mhz(const xray_report *r); /* 0 if unknown */

const char *xray_value_name(const xray_value *v); /* "XRAY_L1I_SIZE" */
const char *xray_value_desc(const xray_value *v); /* "L1 instruction cache capacity" */
const char *xray_value_unit(const xray_value *v); /* "bytes", "ops", ... */
xray_source xray_value_source(const xray_value *v);
/* A source's word, as every output of xray writes it: "measured",
 * "override", "os", "default" or "unknown". */
const char *xray_source_name(xray_source s);
/* The value, NAN when unknown; the unrounded figure behind a rounded
 * value (latencies, initiation intervals; else NAN); the value in
 * nanoseconds for latencies (else NAN). */
double xray_value_number(const xray_value *v);
double xray_value_exact(const xray_value *v);
double xray_value_ns(const xray_value *v);
/* 1 if a measured value was confirmed by a second, independent view
 * (build systems should use only those), else 0. */
int xray_value_confirmed(const xray_value *v);
/* 1 if it is what this process gets of a level other cores share. */
int xray_value_effective(const xray_value *v);
/* 1 with the OS's figure and its source ("sysfs", "hwloc", ...) if the OS
 * has a view of the value, else 0; whether it disagrees with the
 * measurement by more than the tolerance. */
int xray_value_os(const xray_value *v, double *value, const char **source);
int xray_value_disagrees(const xray_value *v);
/* A value that is a name (a core kind's), else NULL. */
const char *xray_value_text(const xray_value *v);
/* How it was measured (and why not confirmed); why it is unknown ("" if
 * it is not); the seconds its probe took. */
const char *xray_value_method(const xray_value *v);
const char *xray_value_reason(const xray_value *v);
double xray_value_seconds(const xray_value *v);

typedef enum xray_format {
  XRAY_FORMAT_TEXT,
  XRAY_FORMAT_JSON,
  XRAY_FORMAT_SHELL,            /* NAME=VALUE lines */
  XRAY_FORMAT_HEADER            /* #define lines */
} xray_format;

int xray_format_parse(const char *s, xray_format *f);

/* --- recordings ------------------------------------------------------------ */

/* A machine that answers the probes from a recording made by
 * `xray --record=DIR` (see xray(1)), instead of timing this one. */
xray_machine *xray_machine_replay(const char *dir, char *err, size_t errlen);
/* A recording's DIR/cpuinfo: the first processor's block of /proc/cpuinfo. */
int xray_record_cpuinfo(FILE *f);
/* A recording's DIR/machine: m's clocks, page and usable CPUs, and the OS
 * view of every value of r. */
int xray_record_machine(FILE *f, xray_machine *m, const xray_report *r);
int xray_report_write(const xray_report *r, FILE *f, xray_format fmt);

/* --- probes -------------------------------------------------------------- */

typedef struct xray_probe {
  const char *name;             /* "icache" */
  const char *summary;
  int (*run)(xray_machine *m, xray_report *r);
} xray_probe;

const xray_probe *xray_probe_find(const char *name);
const xray_probe *xray_probe_at(size_t i);      /* NULL past the last */
/* Runs one probe, adds its values, fills the OS view; 0 on success.  A
 * probe that rests on another's values (bandwidth on the caches probe's
 * levels) takes them from r where an earlier probe set them, else runs
 * that probe itself, once for r: r keeps what it measured (unlisted) for
 * the next probes run into r, and that probe run into r later adds those
 * values instead of measuring again.  xray_report_free frees them. */
int xray_probe_run(const xray_probe *p, xray_machine *m, xray_report *r);

/* --- kinds of core (API version 5) --------------------------------------- */

/* Machines with more than one kind of core (performance and efficiency
 * cores) have different caches and clocks per kind.  xray_kinds_find
 * tells the kinds of this machine (simulate NULL) as the OS tells them
 * apart (hwloc's cpukinds, else sysfs), or of a spec for xray_machine_simulated (kinds
 * separated by ';', each naming itself with kind=NAME), the fastest
 * first; one kind where there is no difference.  xray_kinds_machine gives
 * a machine that measures kind i: on this machine it binds the calling
 * thread, and the threads it starts, to that kind's CPUs (the binding
 * before comes back with xray_kinds_free).  xray_report_add_kind adds a
 * report's values to r with the suffix _KIND<i+1>, xray_report_add_kinds
 * XRAY_CPU_KINDS and each kind's name and CPUs (XRAY_KIND<n>_NAME and
 * _CPUS, values that are names: xray_value_text). */
typedef struct xray_kinds xray_kinds;
xray_kinds *xray_kinds_find(const char *simulate, char *err, size_t errlen);
size_t xray_kinds_count(const xray_kinds *k);
const char *xray_kinds_name(const xray_kinds *k, size_t i);
const char *xray_kinds_cpus(const xray_kinds *k, size_t i); /* "0-7,16-23" */
const char *xray_kinds_source(const xray_kinds *k);
xray_machine *xray_kinds_machine(xray_kinds *k, size_t i, char *err, size_t errlen);
void xray_kinds_free(xray_kinds *k);
int xray_report_add_kinds(xray_report *r, const xray_kinds *k);
int xray_report_add_kind(xray_report *r, const xray_report *from, size_t i);

/* --- static instruction-cache simulation (API version 3) ----------------- */

/* Mueller and Whalley's static cache simulation of the machine code of
 * FILE (an ELF object or executable, x86-64 or AArch64; needs xray built
 * with Capstone and libelf): for each function named (every function FILE
 * defines if n is 0), with the functions it calls in FILE, each loop's
 * references categorised always-hit, always-miss, first-miss or conflict
 * at the loop's level for an LRU cache of size bytes, ways and line bytes,
 * and whether the loop fits (no reference of it misses after its first
 * iteration), written to f as text or JSON.  With iterations not 0, also
 * the hit and miss totals of a run in which each loop's header runs that
 * many times per entry (static, and by a trace-driven simulation of the
 * same path).  0, or -1 with why. */
int xray_icsim(FILE *f, const char *file, const char *const *functions, size_t n,
               unsigned long size, unsigned long ways, unsigned long line, unsigned long iterations,
               int json, char *err, size_t errlen);
/* 1 if every innermost loop of function (and of what it calls in file)
 * fits such a cache, at every placement the link may give an object
 * file's code; 0 if one does not; -1 with why. */
int xray_icsim_fits(const char *file, const char *function, unsigned long size, unsigned long ways,
                    unsigned long line, char *err, size_t errlen);

/* --- hardware events (API version 4) ------------------------------------ */

/* Hardware events (the Counter Inspection Toolkit of Danalis et al.):
 * each event is counted over the toolkit's seven branch benchmarks,
 * compiled with m's compiler and flags, at several iteration counts; its
 * slope per benchmark is compared with each category's expected counts
 * per iteration (from the compiled code), and it is placed in the
 * category it matches on every benchmark, or in none.  Categories: "CE"
 * conditional branches executed (wrong paths too), "CR" retired, "T"
 * taken, "D" direct (unconditional) jumps, "M" mispredictions.
 *
 * events: comma-separated names (perf's generic names, rHEX raw events,
 * PAPI native names where built with PAPI), or NULL for every event m
 * offers.  Each is also counted per load of pointer chases over
 * footprints between the data levels' capacities, levels ("32K,1M,32M")
 * or, where NULL, those the dcache and caches probes measure on m: its
 * signature places an event that counts a level's hits ("L2-HIT") or
 * misses ("L2-MISS").  NULL with the reason in err (one line) when m's
 * counters cannot be read, *no_pmu then 1 (no PMU, perf_event_paranoid,
 * a container...), or when the benchmarks cannot be built. */
/* 0 if m's hardware counters can be read, else -1 with the reason in why;
 * the events m offers, by name (NULL past the last). */
int xray_machine_counters(xray_machine *m, char *why, size_t len);
const char *xray_machine_event_at(xray_machine *m, size_t i);
typedef struct xray_counters xray_counters;
xray_counters *xray_counters_run(xray_machine *m, const char *events, const char *levels,
                                 int *no_pmu, char *err, size_t errlen);
size_t xray_counters_count(const xray_counters *c);
const char *xray_counters_name(const xray_counters *c, size_t i);
/* Its category ("CR"...), NULL if none; its score there, 0 to 1. */
const char *xray_counters_category(const xray_counters *c, size_t i);
double xray_counters_score(const xray_counters *c, size_t i);
/* Text or JSON: every event with its category, score and slopes; shell:
 * for each category the best event scoring at least 0.8, as
 * XRAY_EVENT_<CATEGORY>='name' (XRAY_EVENT_BRANCH_MISSES,
 * XRAY_EVENT_L1D_MISSES, ...); header: the same as #define lines. */
int xray_counters_write(const xray_counters *c, FILE *f, xray_format fmt);
void xray_counters_free(xray_counters *c);

#ifdef __cplusplus
}
#endif

#endif
